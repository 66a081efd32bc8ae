{{/* Chart name, truncated to 63 characters. */}}
{{- define "a2a-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: release-chart, unless the release name already contains the chart name. */}}
{{- define "a2a-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "a2a-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "a2a-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "a2a-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "a2a-operator.labels" -}}
helm.sh/chart: {{ include "a2a-operator.chart" . }}
{{ include "a2a-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: a2a-operator
{{- end }}

{{- define "a2a-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "a2a-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The namespaces the operator watches, as a list: empty means all (cluster-scoped RBAC only). */}}
{{- define "a2a-operator.watchNamespaces" -}}
{{- if .Values.watchNamespaces }}
{{- toJson (uniq .Values.watchNamespaces) }}
{{- else if .Values.rbac.namespaced }}
{{- toJson (list .Release.Namespace) }}
{{- else }}
{{- toJson (list) }}
{{- end }}
{{- end }}

{{- define "a2a-operator.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
The permissions the operator needs in every namespace it watches: exactly the calls it makes
(src/operator, src/controller, src/kube). test/integration/chart-rbac.test.ts removes each verb
in turn and shows the operator then fails.
*/}}
{{- define "a2a-operator.agentRules" -}}
# A2AAgents: cached by an informer; status written by server-side apply on /status.
- apiGroups: ["a2a.dev"]
  resources: ["a2aagents"]
  verbs: ["list", "watch"]
- apiGroups: ["a2a.dev"]
  resources: ["a2aagents/status"]
  verbs: ["patch"]
# Pods: cached; the readiness gate condition a2a.dev/card-verified is patched on pods/status.
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "watch"]
- apiGroups: [""]
  resources: ["pods/status"]
  verbs: ["patch"]
# The managed Service: cached (label-selected); one GET when the name is not in the cache (to
# refuse taking over a Service we did not create); server-side apply (create when missing);
# deleted when the spec no longer names it (serviceName change, Observe mode).
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
# The managed EndpointSlices: cached (a LIST by name when one is not: never taken over);
# server-side apply; stale ones deleted.
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["list", "watch", "create", "patch", "delete"]
# ConfigMaps: the advertised card <name>-agent-card (cached, server-side apply; one GET when not
# cached, never taken over; deleted in Observe mode), and GET of the ConfigMap
# spec.tls.caBundle.configMapKeyRef names.
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
# Secrets: GET only, of the ones spec.auth, spec.tls and spec.routing.signingKey name. Never
# listed or watched. RBAC cannot select by label: the operator itself uses only Secrets
# labelled a2a.dev/credential=true (docs/security.md); rbac.secretNames narrows GET to names.
{{- if .Values.rbac.readSecrets }}
- apiGroups: [""]
  resources: ["secrets"]
  {{- with .Values.rbac.secretNames }}
  resourceNames: {{ toJson (uniq .) }}
  {{- end }}
  verbs: ["get"]
{{- end }}
# Events on transitions; a repeated event raises series.count with a patch.
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}
