{{- define "capgate.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "capgate.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "capgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "capgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "capgate.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "capgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "capgate.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "capgate.secretName" -}}
{{- .Values.existingSecret | default (include "capgate.fullname" .) -}}
{{- end -}}

{{/* The environment of every gateway container: settings from values, secrets by reference. */}}
{{- define "capgate.env" -}}
- name: GATEWAY_ADDR
  value: "0.0.0.0:8080"
- name: GATEWAY_DATA_DIR
  value: /var/lib/gateway/data
- name: GATEWAY_PUBLIC_URL
  value: {{ .Values.publicURL | quote }}
- name: LOG_FORMAT
  value: json
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: SESSION_TTL
  value: {{ .Values.sessionTTL | quote }}
- name: GATEWAY_LEASE_TTL
  value: {{ .Values.leaseTTL | quote }}
- name: GATEWAY_CACHE_MB
  value: {{ .Values.cacheMB | quote }}
{{- with .Values.contact }}
- name: GATEWAY_CONTACT
  value: {{ . | quote }}
{{- end }}
{{- with .Values.trustedProxies }}
- name: GATEWAY_TRUSTED_PROXIES
  value: {{ . | quote }}
{{- end }}
{{- if .Values.tracing.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ .Values.tracing.endpoint | quote }}
- name: OTEL_SERVICE_NAME
  value: {{ .Values.tracing.serviceName | quote }}
- name: OTEL_TRACES_SAMPLER
  value: {{ .Values.tracing.sampler | quote }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ .Values.tracing.samplerArg | quote }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: "k8s.namespace.name={{ .Release.Namespace }}"
{{- with .Values.tracing.providers }}
- name: GATEWAY_TRACE_PROVIDERS
  value: {{ join "," . | quote }}
{{- end }}
{{- end }}
- name: GATEWAY_MASTER_KEY
  valueFrom:
    secretKeyRef: {name: {{ include "capgate.secretName" . }}, key: GATEWAY_MASTER_KEY}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef: {name: {{ include "capgate.secretName" . }}, key: DATABASE_URL}
- name: REDIS_URL
  valueFrom:
    secretKeyRef: {name: {{ include "capgate.secretName" . }}, key: REDIS_URL, optional: true}
- name: METRICS_TOKEN
  valueFrom:
    secretKeyRef: {name: {{ include "capgate.secretName" . }}, key: METRICS_TOKEN, optional: true}
{{- range $id, $_ := .Values.secrets.providerKeys }}
- name: {{ printf "PROVIDER_%s_KEY" (upper $id) }}
  valueFrom:
    secretKeyRef: {name: {{ include "capgate.secretName" $ }}, key: {{ printf "PROVIDER_%s_KEY" (upper $id) }}}
{{- end }}
{{- range $name, $value := .Values.extraEnv }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}
