// Runs Argo CD health checks (deploy/argocd/resource_customizations) over their fixtures with gopher-lua,
// the Lua 5.1 Argo CD embeds. Its own module so that changing it never rebuilds the control plane.
module sluice.local/envtest/argocd-health

go 1.24.0

require (
	github.com/yuin/gopher-lua v1.1.1
	layeh.com/gopher-json v0.0.0-20190114024228-97fed8db8427
	sigs.k8s.io/yaml v1.6.0
)

require go.yaml.in/yaml/v2 v2.4.2 // indirect
