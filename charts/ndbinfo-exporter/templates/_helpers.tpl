{{/* Names and labels, as `helm create` names them. */}}
{{- define "ndbinfo-exporter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "ndbinfo-exporter.fullname" -}}
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

{{- define "ndbinfo-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ndbinfo-exporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "ndbinfo-exporter.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "ndbinfo-exporter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Labels of the objects the Prometheus Operator selects. */}}
{{- define "ndbinfo-exporter.monitoringLabels" -}}
{{ include "ndbinfo-exporter.labels" . }}
{{- with .Values.monitoringLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "ndbinfo-exporter.cluster" -}}
{{- default .Release.Name .Values.cluster }}
{{- end }}

{{- define "ndbinfo-exporter.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* host:port of the exporter's Service, the prober address of every /probe job. */}}
{{- define "ndbinfo-exporter.serviceAddress" -}}
{{- printf "%s.%s.svc:%d" (include "ndbinfo-exporter.fullname" .) .Release.Namespace (int .Values.service.port) }}
{{- end }}

{{/* --probe.allowed-targets: the static targets and the extra patterns. */}}
{{- define "ndbinfo-exporter.allowedTargets" -}}
{{- $patterns := list }}
{{- range .Values.targets.static }}
{{- $patterns = append $patterns .address }}
{{- end }}
{{- $patterns = concat $patterns .Values.targets.allowedPatterns }}
{{- join "," $patterns }}
{{- end }}

{{/* Relabelings every scrape job ends with: the cluster (and source_cluster) and job labels. Argument: (dict "root" $ "job" NAME). */}}
{{- define "ndbinfo-exporter.jobRelabelings" -}}
- targetLabel: cluster
  replacement: {{ include "ndbinfo-exporter.cluster" .root | quote }}
{{- with .root.Values.sourceCluster }}
- targetLabel: source_cluster
  replacement: {{ . | quote }}
{{- end }}
- targetLabel: job
  replacement: {{ .job | quote }}
{{- end }}

{{/* Scheme, TLS and basic auth of a ServiceMonitor or PodMonitor endpoint. */}}
{{- define "ndbinfo-exporter.endpointAuth" -}}
scheme: {{ .Values.scrape.scheme }}
{{- with .Values.scrape.tlsConfig }}
tlsConfig:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.scrape.basicAuth }}
basicAuth:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The exporter container. Argument: (dict "root" $ "name" NAME "portName" PORT "address" HOST:PORT
"extraArgs" LIST "extraMounts" BOOL); an empty address gives no --mysqld.address. The Deployment and the sidecar share it; extraVolumeMounts
belong to the Deployment's pod only.
*/}}
{{- define "ndbinfo-exporter.container" -}}
{{- $root := .root }}
{{- $values := $root.Values -}}
- name: {{ .name }}
  image: {{ include "ndbinfo-exporter.image" $root | quote }}
  imagePullPolicy: {{ $values.image.pullPolicy }}
  args:
    - --web.listen-address=:{{ $values.service.port }}
    {{- with .address }}
    - {{ printf "--mysqld.address=%s" . | quote }}
    {{- end }}
    {{- with $values.mysql.username }}
    - {{ printf "--mysqld.username=%s" . | quote }}
    {{- end }}
    {{- if $values.mysql.myCnfSecret.name }}
    - --config.my-cnf=/etc/ndbinfo-exporter/my-cnf/my.cnf
    {{- end }}
    {{- if $values.webConfigSecret }}
    - --web.config.file=/etc/ndbinfo-exporter/web/web-config.yml
    {{- end }}
    - --log.level={{ $values.log.level }}
    - --log.format={{ $values.log.format }}
    {{- range $name, $on := $values.collectors }}
    - --{{ ternary "" "no-" $on }}collector.{{ $name }}
    {{- end }}
    {{- range .extraArgs }}
    - {{ . | quote }}
    {{- end }}
    {{- range $values.extraArgs }}
    - {{ . | quote }}
    {{- end }}
  {{- with $values.mysql.passwordSecret.name }}
  env:
    - name: NDB_EXPORTER_PASSWORD
      valueFrom:
        secretKeyRef:
          name: {{ . }}
          key: {{ $values.mysql.passwordSecret.key }}
  {{- end }}
  ports:
    - name: {{ .portName }}
      containerPort: {{ $values.service.port }}
      protocol: TCP
  {{- $portName := .portName }}
  {{- range $kind := list "livenessProbe" "readinessProbe" }}
  {{ $kind }}:
    {{- if $values.webConfigSecret }}
    tcpSocket:
      port: {{ $portName }}
    {{- else }}
    httpGet:
      path: /healthz
      port: {{ $portName }}
    {{- end }}
    {{- with index $values $kind }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
  {{- with $values.resources }}
  resources:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $values.securityContext }}
  securityContext:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  volumeMounts:
    - name: ndbinfo-exporter-tmp
      mountPath: /tmp
    {{- if $values.mysql.myCnfSecret.name }}
    - name: ndbinfo-exporter-my-cnf
      mountPath: /etc/ndbinfo-exporter/my-cnf
      readOnly: true
    {{- end }}
    {{- if $values.webConfigSecret }}
    - name: ndbinfo-exporter-web
      mountPath: /etc/ndbinfo-exporter/web
      readOnly: true
    {{- end }}
    {{- if .extraMounts }}
    {{- with $values.extraVolumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- end }}
{{- end }}

{{/*
Volumes of the exporter container. Argument: (dict "root" $ "fileMode" MODE). Files are 0440
under the Deployment's fsGroup; a sidecar shares a pod whose fsGroup is not the exporter's, so
its files are 0444.
*/}}
{{- define "ndbinfo-exporter.volumes" -}}
{{- $values := .root.Values -}}
- name: ndbinfo-exporter-tmp
  emptyDir:
    sizeLimit: 16Mi
{{- with $values.mysql.myCnfSecret.name }}
- name: ndbinfo-exporter-my-cnf
  secret:
    secretName: {{ . }}
    defaultMode: {{ $.fileMode }}
    items:
      - key: {{ $values.mysql.myCnfSecret.key }}
        path: my.cnf
{{- end }}
{{- with $values.webConfigSecret }}
- name: ndbinfo-exporter-web
  secret:
    secretName: {{ . }}
    defaultMode: {{ $.fileMode }}
    items:
      - key: web-config.yml
        path: web-config.yml
{{- end }}
{{- end }}

{{/* The sidecar: a container and its volumes for a SQL-node pod of your own. */}}
{{- define "ndbinfo-exporter.sidecar.container" -}}
{{- include "ndbinfo-exporter.container" (dict "root" . "name" "ndbinfo-exporter" "portName" .Values.sidecar.portName "address" .Values.sidecar.mysqldAddress "extraArgs" list "extraMounts" false) }}
{{- end }}

{{- define "ndbinfo-exporter.sidecar.volumes" -}}
{{- include "ndbinfo-exporter.volumes" (dict "root" . "fileMode" "0444") }}
{{- end }}
