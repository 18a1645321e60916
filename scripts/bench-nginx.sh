# Sourced by the serve benchmarks (bench-serve-hits.sh, bench-serve-disk-hits.sh): nginx on 127.0.0.1 as the
# origin ($work/www) and as the static file server to compare with ($work/static), with sendfile and no access
# log, 2 workers. Needs $work with logs/ in it; sets nginx_bin.
# Usage: start_bench_nginx ORIGIN_PORT STATIC_PORT; rotation PATH_FILE > script.lua (a wrk script)
start_bench_nginx() {
  nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
  cat > "$work/nginx.conf" <<CONF
worker_processes 2; pid $work/nginx.pid; error_log $work/logs/error.log warn;
events { worker_connections 4096; }
http { access_log off; sendfile on; keepalive_requests 1000000; types { image/jpeg jpg; }
  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work; uwsgi_temp_path $work; scgi_temp_path $work;
  server { listen 127.0.0.1:$1; root $work/www; location / { expires 1h; } }
  server { listen 127.0.0.1:$2; root $work/static; location / { expires 1h; } } }
CONF
  "$nginx_bin" -c "$work/nginx.conf"
}

rotation() {  # PATH_FILE -> a wrk script requesting the paths in turn
  python3 - "$1" <<'PY'
import sys
paths = [line.strip() for line in open(sys.argv[1]) if line.strip()]
print("local paths = {" + ",".join(f'"{p}"' for p in paths) + "}")
print("local i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format('GET', paths[i])\nend")
PY
}
