#!/bin/bash
# runner-ctl's guest side (docs/runner-ctl.md#image-contract), run once per boot by
# runner-bootstrap.service: read the JIT configuration runner-ctl wrote into the instance key
# user.runner-ctl-jitconfig (GET /1.0/config/<key> on /dev/incus/sock), start the ephemeral
# Actions runner with it, report Ready (PATCH /1.0 {"state":"Ready"}; runner-ctl then blanks the
# key on the host: the guest API cannot write instance config), and power off when the runner
# exits (its one job is over) or when anything fails. The JIT configuration is never written to
# disk or logged. The variables below exist for tests (a fake /dev/incus/sock, a fake runner).
set -euo pipefail

SOCK="${RUNNER_CTL_DEVINCUS_SOCK:-/dev/incus/sock}"
RUNNER_DIR="${RUNNER_CTL_RUNNER_DIR:-/opt/actions-runner}"
RUN_AS="${RUNNER_CTL_RUN_AS-runner}"
POWEROFF="${RUNNER_CTL_POWEROFF:-systemctl poweroff}"
WAIT_S="${RUNNER_CTL_WAIT_S:-300}"
KEY="user.runner-ctl-jitconfig"

# Whatever happens (the runner's exit, a failure, a timeout): power off. An ephemeral VM is never
# reused; runner-ctl removes it once stopped.
trap '${POWEROFF}' EXIT

api() { curl --silent --show-error --fail --unix-socket "$SOCK" "$@"; }

# The agent creates the socket shortly after boot; the JIT key is set before the VM starts, but
# a slow agent is waited for (runner-ctl's incus.bootstrap_timeout bounds the whole of it).
jit=""
for ((i = 0; i < WAIT_S; i++)); do
  if [ -S "$SOCK" ]; then
    jit="$(api "http://incus/1.0/config/${KEY}" 2>/dev/null || true)"
    [ -n "$jit" ] && break
  fi
  sleep 1
done
if [ -z "$jit" ]; then
  echo "runner-bootstrap: no ${KEY} after ${WAIT_S} s; powering off" >&2
  exit 1
fi

cd "$RUNNER_DIR"
if [ -n "$RUN_AS" ]; then
  runuser -u "$RUN_AS" -- ./run.sh --jitconfig "$jit" &
else
  ./run.sh --jitconfig "$jit" &
fi
runner=$!
unset jit
api -X PATCH -H "Content-Type: application/json" -d '{"state":"Ready"}' http://incus/1.0 >/dev/null
echo "runner-bootstrap: runner started, Ready reported"
status=0
wait "$runner" || status=$?
echo "runner-bootstrap: runner exited (${status}); powering off"
exit "$status"
