#!/usr/bin/env bash
# Serves a folder over HTTP on 127.0.0.1 with nginx, for benchmarks and manual tries.
# Usage: scripts/serve-nginx.sh start DIR PORT WORKDIR   |   scripts/serve-nginx.sh stop WORKDIR
# Responses carry ETag, Last-Modified and Cache-Control: max-age=3600.
set -euo pipefail
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "needs nginx: apt-get install -y nginx" >&2; exit 2; }
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
case "$1" in
start)
  root=$(cd "$2" && pwd); port=$3; work=$4
  chmod o+rx "$root"  # nginx workers run as www-data
  mkdir -p "$work/logs" "$work/tmp"
  cat > "$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/tmp; proxy_temp_path $work/tmp; fastcgi_temp_path $work/tmp;
  uwsgi_temp_path $work/tmp; scgi_temp_path $work/tmp;
  sendfile on; tcp_nopush on; keepalive_requests 100000;
  types { image/jpeg jpg jpeg; image/png png; image/webp webp; image/avif avif; image/gif gif; }
  server {
    listen 127.0.0.1:$port;
    root $root;
    location / { expires 1h; }
  }
}
CONF
  "$nginx_bin" -c "$work/nginx.conf" -p "$work"
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
  ;;
stop)
  [ -f "$2/nginx.pid" ] && kill "$(cat "$2/nginx.pid")" 2>/dev/null || true
  ;;
esac
