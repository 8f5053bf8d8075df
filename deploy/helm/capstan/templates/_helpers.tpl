{{/* One of the operators' deploy/ files, moved into the release namespace. */}}
{{- define "capstan.file" -}}
{{- $root := index . 0 -}}
{{- $root.Files.Get (index . 1) | replace "namespace: capstan-system" (printf "namespace: %s" $root.Release.Namespace) | replace "system:serviceaccount:capstan-system:" (printf "system:serviceaccount:%s:" $root.Release.Namespace) }}
{{- end -}}

{{/*
An operator's flags from its `config` map, in key order: null leaves a flag out (the operator's
default applies), true gives `--flag`, false leaves it out, a list repeats the flag, anything else
gives `--flag=value`. Then `extraArgs` as they are. Call with (list config extraArgs).
*/}}
{{- define "capstan.args" -}}
{{- range $flag, $value := index . 0 }}
{{- if kindIs "slice" $value }}
{{- range $value }}
- {{ printf "--%s=%s" $flag (include "capstan.value" .) | quote }}
{{- end }}
{{- else if kindIs "bool" $value }}
{{- if $value }}
- {{ printf "--%s" $flag | quote }}
{{- end }}
{{- else if not (kindIs "invalid" $value) }}
- {{ printf "--%s=%s" $flag (include "capstan.value" $value) | quote }}
{{- end }}
{{- end }}
{{- range index . 1 }}
- {{ . | quote }}
{{- end }}
{{- end -}}

{{/*
A flag's value as text. Numbers from a values file arrive as float64, which %v prints as 2e+06:
a whole number is printed as an integer.
*/}}
{{- define "capstan.value" -}}
{{- if and (kindIs "float64" .) (eq . (float64 (int64 .))) }}{{ int64 . }}{{ else }}{{ . }}{{ end -}}
{{- end -}}

{{/* The port of a bind address such as ":8080" or "0.0.0.0:8080"; empty when "0" (off). */}}
{{- define "capstan.port" -}}
{{- $address := toString . -}}
{{- if ne $address "0" }}{{ regexFind "[0-9]+$" $address }}{{ end -}}
{{- end -}}

{{/* The pod spec fields every workload of the chart takes from its values. */}}
{{- define "capstan.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- end -}}

{{/*
A leader-elected operator's Deployment from its subchart's values (image, replicas, config,
extraArgs, env, volumes, resources, scheduling): the version operator's and capvcd's. Call with
(dict "root" . "name" "capstan-capvcd" "container" "manager"), and optionally "ports", "volumes"
and "volumeMounts": lists the subchart's own templates add before the values' (capvcd's webhook).
*/}}
{{- define "capstan.operator" -}}
{{- $v := .root.Values -}}
{{- $metricsPort := include "capstan.port" (index $v.config "metrics-bind-address" | default ":8080") -}}
{{- $probesPort := include "capstan.port" (index $v.config "health-probe-bind-address" | default ":8081") -}}
{{- $volumes := concat (.volumes | default list) ($v.volumes | default list) -}}
{{- $volumeMounts := concat (.volumeMounts | default list) ($v.volumeMounts | default list) -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .name }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    app.kubernetes.io/name: {{ .name }}
    {{- with $v.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  replicas: {{ int $v.replicas }}
  selector:
    matchLabels:
      app.kubernetes.io/name: {{ .name }}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: {{ .name }}
        {{- with $v.labels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ .name }}
      {{- include "capstan.scheduling" $v | trim | nindent 6 }}
      {{- with $v.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: {{ .container }}
          image: {{ printf "%s:%s" $v.image.repository $v.image.tag }}
          args:
            {{- include "capstan.args" (list $v.config $v.extraArgs) | trim | nindent 12 }}
          env:
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            {{- with $v.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            {{- if $metricsPort }}
            - name: metrics
              containerPort: {{ $metricsPort }}
            {{- end }}
            {{- if $probesPort }}
            - name: probes
              containerPort: {{ $probesPort }}
            {{- end }}
            {{- with .ports }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- if $probesPort }}
          livenessProbe:
            httpGet: { path: /healthz, port: probes }
          readinessProbe:
            httpGet: { path: /readyz, port: probes }
          {{- end }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: [ALL]
          {{- with $volumeMounts }}
          volumeMounts:
            {{- toYaml . | nindent 12 }}
          {{- end }}
      {{- with $volumes }}
      volumes:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}

{{/*
Secure metrics of one operator (its config's metrics-secure): the RBAC its reviews need, and a
reader role to bind scrapers to. Takes (dict "root" . "name" <ServiceAccount name>).
*/}}
{{- define "capstan.metricsAuth" -}}
{{- if index .root.Values.config "metrics-secure" }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ .name }}-metrics-auth
rules:
  - apiGroups: [authentication.k8s.io]
    resources: [tokenreviews]
    verbs: [create]
  - apiGroups: [authorization.k8s.io]
    resources: [subjectaccessreviews]
    verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ .name }}-metrics-auth
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ .name }}-metrics-auth
subjects:
  - kind: ServiceAccount
    name: {{ .name }}
    namespace: {{ .root.Release.Namespace }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ .name }}-metrics-reader
rules:
  - nonResourceURLs: [/metrics]
    verbs: [get]
{{- end }}
{{- end }}
