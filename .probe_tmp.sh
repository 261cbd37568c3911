set -u
P="--allow-net --allow-read --allow-env --allow-sys --allow-write=./.data"
deno run $P services/mock-oidc/main.ts --addr 127.0.0.1:38301 --metrics-addr= --control-addr 127.0.0.1:38306 >/dev/null 2>&1 & A=$!
deno run $P services/todo-api/main.ts serve --addr 127.0.0.1:38302 --metrics-addr 127.0.0.1:38307 >/dev/null 2>&1 & B=$!
AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=y deno run $P services/image-proxy/main.ts --bucket m --region us-east-1 --s3.endpoint http://127.0.0.1:9 --listen 127.0.0.1:38303 >/dev/null 2>&1 & C=$!
deno run $P services/mcp-server/main.ts --transport http --addr 127.0.0.1:38304 --issuer http://127.0.0.1:9/d >/dev/null 2>&1 & D=$!
sleep 12
for u in 38301/ 38301/nope/x 38306/ 38306/_mock/nope 38302/ 38302/nope 38303/ 38304/ 38304/nope/x; do echo "== $u"; curl -s -i http://127.0.0.1:$u | grep -iv "^date\|^x-request-id\|^vary\|^content-length" ; echo; done
kill $A $B $C $D
