#!/usr/bin/env bash
# Refresh the vendored front-end files from the npm registry: what the pages
# load into static/vendor/, what only the browser tests load into tests/vendor/.
# Pinned versions; change them here, run this, commit the result.
set -euo pipefail
HTMX=2.0.11
SOCKETIO=4.8.4
AXE=4.14.1
SHA256=1.0.0
cd "$(dirname "$0")/.."
out=static/vendor
tests=tests/vendor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
( cd "$work" && npm pack --silent "htmx.org@$HTMX" "socket.io-client@$SOCKETIO" "axe-core@$AXE" "js-sha256@$SHA256" >/dev/null )
mkdir -p "$work/htmx" "$work/sio" "$work/axe" "$work/sha256" "$tests"
tar -xzf "$work"/htmx.org-$HTMX.tgz -C "$work/htmx"
tar -xzf "$work"/socket.io-client-$SOCKETIO.tgz -C "$work/sio"
tar -xzf "$work"/axe-core-$AXE.tgz -C "$work/axe"
tar -xzf "$work"/js-sha256-$SHA256.tgz -C "$work/sha256"
cp "$work/htmx/package/dist/htmx.min.js" "$out/htmx.min.js"
cp "$work/htmx/package/LICENSE" "$out/htmx.LICENSE"
cp "$work/sio/package/dist/socket.io.min.js" "$out/socket.io.min.js"
cp "$work/sio/package/LICENSE" "$out/socket.io.LICENSE"
cp "$work/sha256/package/build/sha256.min.js" "$out/sha256.min.js"
cp "$work/sha256/package/LICENSE.txt" "$out/sha256.LICENSE"
cp "$work/axe/package/axe.min.js" "$tests/axe.min.js"
cp "$work/axe/package/LICENSE" "$tests/axe.LICENSE"
cat > "$out/VERSIONS" <<TXT
htmx.org $HTMX (BSD Zero Clause, htmx.LICENSE): htmx.min.js
socket.io-client $SOCKETIO (MIT, socket.io.LICENSE): socket.io.min.js
js-sha256 $SHA256 (MIT, sha256.LICENSE): sha256.min.js, the room page's check of the dice's seals (no crypto.subtle on plain http)
Refresh with scripts/vendor.sh (from the npm registry).
TXT
cat > "$tests/VERSIONS" <<TXT
axe-core $AXE (MPL-2.0, axe.LICENSE): axe.min.js, the accessibility check of the browser tests
Refresh with scripts/vendor.sh (from the npm registry).
TXT
echo "vendored htmx $HTMX, socket.io-client $SOCKETIO and js-sha256 $SHA256 into $out, axe-core $AXE into $tests"
