#!/usr/bin/env bash
# Builds the Debian package with CPack, installs it into a scratch root
# (dpkg -x: the files a `dpkg -i` would install) and runs the installed CLI
# on a bundled trace: it must start (its library dependencies are the
# package's Depends), report, and find its docs.
#   deb_package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1"); src=$(realpath "$2")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -G DEB >cpack.log 2>&1) \
  || { cat "$work/cpack.log"; echo "FAIL: cpack"; exit 1; }
deb=$(ls "$work"/streamscope_*.deb)
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libsqlite3 libstdc++; do
  grep -q "$lib" <<<"$depends" || { echo "FAIL: Depends lacks $lib"; exit 1; }
done
dpkg -x "$deb" "$work/root"
cli=$work/root/usr/bin/streamscope
[ -x "$cli" ] || { echo "FAIL: no usr/bin/streamscope in the package"; exit 1; }
"$cli" --version
out=$("$cli" report "$src/tests/data/overlapped.sqlite")
grep -q "overlap" <<<"$out" || { echo "FAIL: installed CLI printed no report"; exit 1; }
[ -f "$work/root/usr/share/doc/streamscope/README.md" ] || { echo "FAIL: docs not installed"; exit 1; }
if [ -f "$build/lib/libstreamscope_collector.so" ]; then
  [ -f "$work/root/usr/lib/streamscope/libstreamscope_collector.so" ] \
    || { echo "FAIL: collector not in the package"; exit 1; }
fi
echo "PASS: package installs and runs"
