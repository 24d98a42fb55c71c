{{- define "sluice.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end }}

{{- define "sluice.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "sluice.labels" -}}
{{ include "sluice.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{- define "sluice.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "sluice.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end }}

{{- /* The credentials Secret's name, or nothing when the operator has no default credentials. */}}
{{- define "sluice.credentialsSecret" -}}
{{- if .Values.credentials.existingSecret -}}
{{- .Values.credentials.existingSecret -}}
{{- else if .Values.credentials.keySecret -}}
{{- printf "%s-cloud" (include "sluice.fullname" .) -}}
{{- end -}}
{{- end }}

{{- define "sluice.args" -}}
- run
- --metrics-bind-address=:{{ .Values.metrics.port }}
- --health-probe-bind-address=:{{ .Values.healthProbe.port }}
{{- with include "sluice.credentialsSecret" . }}
- --credentials-secret={{ $.Release.Namespace }}/{{ . }}
{{- end }}
{{- with .Values.watchNamespace }}
- --namespace={{ . }}
{{- end }}
{{- with .Values.clusterName }}
- --cluster-name={{ . }}
{{- end }}
{{- with .Values.takeOverFrom }}
- --take-over-from={{ join "," . }}
{{- end }}
{{- /* Always, whatever the replica count: a rollout or a replaced pod briefly runs two processes. */}}
- --leader-elect
- --leader-election-namespace={{ .Release.Namespace }}
- --leader-election-id={{ include "sluice.fullname" . }}
- --concurrency={{ .Values.operator.concurrency }}
- --sync-interval={{ .Values.operator.syncInterval }}
- --poll-interval={{ .Values.operator.pollInterval }}
- --management-quota={{ .Values.operator.managementQuota }}
- --alerting-quota={{ .Values.operator.alertingQuota }}
- --stall-timeout={{ .Values.operator.stallTimeout }}
{{- with .Values.operator.operatorCredentialsNamespaces }}
- --operator-credentials-namespaces={{ join "," . }}
{{- end }}
{{- with .Values.operator.plainIdNamespaces }}
- --plain-id-namespaces={{ join "," . }}
{{- end }}
{{- with .Values.operator.allowedApiHosts }}
- --allowed-api-hosts={{ join "," . }}
{{- end }}
{{- with .Values.operator.apiKeyRoles }}
- --api-key-roles={{ range $namespace, $roles := . }}{{ $namespace }}={{ join "+" $roles }},{{ end }}
{{- end }}
- --log-level={{ .Values.operator.logLevel }}
{{- range .Values.operator.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end }}
