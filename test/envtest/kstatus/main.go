// Command kstatus reads the status of objects the way Flux, kpt and cli-utils do: status.Compute from
// sigs.k8s.io/cli-utils/pkg/kstatus, the library those tools call on every object they wait for.
//
// Usage: kstatus < objects.jsonl
//
// Reads one JSON object per line on stdin and prints, for each, one JSON line {status, message} on stdout
// (status: InProgress, Failed, Current, Terminating, NotFound or Unknown), or {error} when kstatus could not
// read the object. The exit code is 0 when every line was read; comparing results is the caller's job.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type result struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		if len(in.Bytes()) == 0 {
			continue
		}
		var r result
		var obj map[string]interface{}
		// As the apiserver's clients decode: whole numbers become int64, which kstatus requires.
		if err := utiljson.Unmarshal(in.Bytes(), &obj); err != nil {
			r.Error = err.Error()
		} else if res, err := status.Compute(&unstructured.Unstructured{Object: obj}); err != nil {
			r.Error = err.Error()
		} else {
			r.Status, r.Message = res.Status.String(), res.Message
		}
		if err := out.Encode(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
