{{/* One of the operators' deploy/ files, moved into the release namespace. */}}
{{- define "capstan.file" -}}
{{- $root := index . 0 -}}
{{- $root.Files.Get (index . 1) | replace "namespace: capstan-system" (printf "namespace: %s" $root.Release.Namespace) | replace "system:serviceaccount:capstan-system:" (printf "system:serviceaccount:%s:" $root.Release.Namespace) }}
{{- end -}}
