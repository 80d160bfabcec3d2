#!/bin/bash
# s3proxy with a filesystem blob store on S3PROXY_BIND:S3PROXY_PORT (0.0.0.0:9000); the buckets of S3_BUCKETS (comma-separated) exist from the start.
set -euo pipefail
: "${S3PROXY_PORT:=9000}" "${S3_ACCESS_KEY:=s3-access}" "${S3_SECRET_KEY:=s3-secret}" "${S3_BUCKETS:=exports}"
data=${S3_DATA_DIR:-/data}
for b in ${S3_BUCKETS//,/ }; do mkdir -p "$data/$b"; done
cat >/tmp/s3proxy.conf <<CONF
s3proxy.endpoint=http://${S3PROXY_BIND:-0.0.0.0}:${S3PROXY_PORT}
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=${S3_ACCESS_KEY}
s3proxy.credential=${S3_SECRET_KEY}
jclouds.provider=filesystem-nio2
jclouds.identity=${S3_ACCESS_KEY}
jclouds.credential=${S3_SECRET_KEY}
jclouds.filesystem.basedir=${data}
CONF
exec java -Dlogback.configurationFile=/opt/s3proxy/logback.xml -cp '/opt/s3proxy/lib/*' org.gaul.s3proxy.Main \
  --properties /tmp/s3proxy.conf
