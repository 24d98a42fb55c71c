// Command argocd-health runs Argo CD health checks over their fixtures the way Argo CD runs a health script
// configured in argocd-cm (util/lua in argo-cd): gopher-lua (Lua 5.1) without the standard libraries except
// package, base and table, the object as the global `obj`, a one-second timeout, and the returned table
// encoded with gopher-json and read as {status, message}; a status Argo CD does not know becomes Unknown.
// (Argo CD also opens a reduced os library; the sluice scripts do not use it, so it is left out.)
//
// Usage: argocd-health <resource_customizations dir>
//
// Walks the directory for <group>/<Kind>/health_test.yaml, runs <group>/<Kind>/health.lua over every
// inputPath listed there and prints one JSON object per test case on stdout. The exit code is 0 when every
// case ran (whatever its result); comparing results is the caller's job.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	lua "github.com/yuin/gopher-lua"
	luajson "layeh.com/gopher-json"
	"sigs.k8s.io/yaml"
)

type health struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

type testFile struct {
	Tests []struct {
		HealthStatus health `json:"healthStatus"`
		InputPath    string `json:"inputPath"`
	} `json:"tests"`
}

type result struct {
	Dir       string  `json:"dir"`
	InputPath string  `json:"inputPath"`
	Expected  health  `json:"expected"`
	Actual    *health `json:"actual,omitempty"`
	Error     string  `json:"error,omitempty"`
}

var knownStatuses = map[string]bool{
	"Unknown": true, "Progressing": true, "Suspended": true, "Healthy": true, "Degraded": true, "Missing": true,
}

// decodeValue turns a decoded JSON/YAML value into a Lua value, as argo-cd's util/lua does.
func decodeValue(l *lua.LState, value interface{}) lua.LValue {
	switch v := value.(type) {
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case []interface{}:
		arr := l.CreateTable(len(v), 0)
		for _, item := range v {
			arr.Append(decodeValue(l, item))
		}
		return arr
	case map[string]interface{}:
		tbl := l.CreateTable(0, len(v))
		for key, item := range v {
			tbl.RawSetH(lua.LString(key), decodeValue(l, item))
		}
		return tbl
	}
	return lua.LNil
}

func runHealth(script string, obj map[string]interface{}) (*health, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", decodeValue(l, obj))
	if err := l.DoString(script); err != nil {
		return nil, err
	}
	ret := l.Get(-1)
	if ret.Type() != lua.LTTable {
		return nil, fmt.Errorf("expect table output from Lua script, not %s", ret.Type())
	}
	encoded, err := luajson.Encode(ret)
	if err != nil {
		return nil, err
	}
	var h health
	if err := json.Unmarshal(encoded, &h); err != nil {
		return nil, err
	}
	if !knownStatuses[h.Status] {
		return &health{Status: "Unknown", Message: "Lua returned an invalid health status"}, nil
	}
	return &h, nil
}

func readYAML(path string, into interface{}) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return yaml.Unmarshal(data, into)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: argocd-health <resource_customizations dir>")
		os.Exit(2)
	}
	root := os.Args[1]
	out := json.NewEncoder(os.Stdout)
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "health_test.yaml" {
			return err
		}
		dir := filepath.Dir(path)
		rel, _ := filepath.Rel(root, dir)
		script, err := os.ReadFile(filepath.Join(dir, "health.lua"))
		if err != nil {
			return err
		}
		var tests testFile
		if err := readYAML(path, &tests); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, t := range tests.Tests {
			found++
			r := result{Dir: rel, InputPath: t.InputPath, Expected: t.HealthStatus}
			var obj map[string]interface{}
			if err := readYAML(filepath.Join(dir, t.InputPath), &obj); err != nil {
				r.Error = err.Error()
			} else if h, err := runHealth(string(script), obj); err != nil {
				r.Error = err.Error()
			} else {
				r.Actual = h
			}
			if err := out.Encode(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if found == 0 {
		fmt.Fprintf(os.Stderr, "no health_test.yaml under %s\n", root)
		os.Exit(1)
	}
}
