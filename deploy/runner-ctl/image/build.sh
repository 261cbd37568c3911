#!/bin/bash
# Builds the reference runner image for runner-ctl with Debian's incus client: a Debian 12 VM
# with secure boot (the image the baseline's profiles require), the incus-agent the image ships,
# the Actions runner (a pinned release, checked against its SHA-256) run as user "runner", and
# runner-bootstrap.service; then publishes it under an alias (runner-ctl follows an alias:
# rebuild and publish again to rotate the image, docs/runner-ctl.md#incus).
#
# Usage: RUNNER_VERSION=2.321.0 RUNNER_SHA256=<sha256 of actions-runner-linux-x64-...tar.gz> \
#          deploy/runner-ctl/image/build.sh [alias] [project]
# Needs: incus (Debian package "incus-client"), network access for the guest (apt, github.com).
set -euo pipefail

ALIAS="${1:-runner-image}"
PROJECT="${2:-default}"
RUNNER_VERSION="${RUNNER_VERSION:?set RUNNER_VERSION (an actions/runner release, e.g. 2.321.0)}"
RUNNER_SHA256="${RUNNER_SHA256:?set RUNNER_SHA256 (from the release notes of that version)}"
BASE="${BASE_IMAGE:-images:debian/12/cloud}"
HERE="$(cd "$(dirname "$0")" && pwd)"
VM="runner-image-build-$$"

in_vm() { incus exec --project "$PROJECT" "$VM" -- "$@"; }
cleanup() { incus delete --project "$PROJECT" --force "$VM" >/dev/null 2>&1 || true; }
trap cleanup EXIT

incus launch "$BASE" "$VM" --vm --project "$PROJECT" -c security.secureboot=true
for _ in $(seq 1 120); do in_vm true >/dev/null 2>&1 && break; sleep 2; done
in_vm cloud-init status --wait >/dev/null 2>&1 || true

in_vm apt-get update
in_vm env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  ca-certificates curl tar gzip git
in_vm useradd --create-home --shell /bin/bash runner
url="https://github.com/actions/runner/releases/download/v${RUNNER_VERSION}/actions-runner-linux-x64-${RUNNER_VERSION}.tar.gz"
in_vm curl --fail --silent --show-error --location --output /tmp/runner.tar.gz "$url"
in_vm sh -c "echo '${RUNNER_SHA256}  /tmp/runner.tar.gz' | sha256sum -c -"
in_vm install -d -o runner -g runner /opt/actions-runner
in_vm tar -xzf /tmp/runner.tar.gz -C /opt/actions-runner
in_vm chown -R runner:runner /opt/actions-runner
in_vm /opt/actions-runner/bin/installdependencies.sh
in_vm rm -f /tmp/runner.tar.gz

incus file push --project "$PROJECT" --mode 0755 --create-dirs \
  "$HERE/runner-bootstrap.sh" "$VM/usr/local/lib/runner-ctl/runner-bootstrap.sh"
incus file push --project "$PROJECT" --mode 0644 \
  "$HERE/runner-bootstrap.service" "$VM/etc/systemd/system/runner-bootstrap.service"
in_vm systemctl enable runner-bootstrap.service
# A clean first boot for every runner: no machine id, no cloud-init state, no logs.
in_vm cloud-init clean --logs --machine-id >/dev/null 2>&1 || in_vm truncate -s 0 /etc/machine-id

incus stop --project "$PROJECT" "$VM"
incus publish --project "$PROJECT" "$VM" --alias "$ALIAS" --reuse \
  description="runner-ctl runner: Debian 12, actions/runner ${RUNNER_VERSION}"
echo "published ${ALIAS}; set incus.image: ${ALIAS}"
