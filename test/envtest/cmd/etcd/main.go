// Command etcd is upstream etcd's server main (go.etcd.io/etcd/server/v3),
// re-declared here only so `go build -o dir/` names the binary "etcd"
// (the upstream package path ends in ".../server/v3").
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
