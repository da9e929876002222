#!/usr/bin/env bash
# Installs a real VS Code for the extension's end-to-end test: code-server 4.96.4 (VS Code 1.96.4,
# the last line that runs on Node 20), from the npm registry and Debian's packages only, into
# ${CODE_SERVER_DIR:-$HOME/.cache/setup-pack/code-server}. `npm run setup:test` (and CI) run it;
# without it apps/vscode/test/vscode.e2e.test.ts skips with the reason printed.
#
# code-server's own postinstall would fetch from GitHub, so its steps are done here: VS Code's
# dependencies with the one GitHub-pinned package (@vscode/proxy-agent 0.27.0) taken from the
# registry, where the same tarball (same integrity hash) is published; native modules built
# against Debian's Node headers (node-gyp must not download them); Debian's ripgrep in place of
# the one @vscode/ripgrep downloads. kerberos (proxy authentication only) is not built.
set -euo pipefail
DIR=${CODE_SERVER_DIR:-$HOME/.cache/setup-pack/code-server}
VERSION=4.96.4
ENTRY="$DIR/node_modules/code-server/out/node/entry.js"
if [ -f "$DIR/.installed-$VERSION" ] && [ -f "$ENTRY" ]; then
  echo "install-vscode: code-server $VERSION is in $DIR"
  exit 0
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if ! command -v rg >/dev/null 2>&1; then
  $SUDO apt-get install -y -qq ripgrep >/dev/null || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq ripgrep >/dev/null; }
fi
[ -f /usr/include/node/node.h ] || { echo "install-vscode: no Node headers in /usr/include/node (Debian's nodejs has them)" >&2; exit 1; }
export npm_config_nodedir=/usr npm_config_audit=false npm_config_fund=false npm_config_loglevel=error
mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || echo '{ "name": "setup-pack-code-server", "private": true }' > package.json
npm install --ignore-scripts "code-server@$VERSION"
npm rebuild argon2
cd node_modules/code-server/lib/vscode
sed -i 's#"resolved": "git+ssh://git@github.com/microsoft/vscode-proxy-agent.git\#0803e0a7d1249bcb64ae9d256d0ee732b7246ea5"#"resolved": "https://registry.npmjs.org/@vscode/proxy-agent/-/proxy-agent-0.27.0.tgz"#' npm-shrinkwrap.json
npm install --omit=dev --ignore-scripts
npm rebuild @vscode/spdlog @vscode/deviceid native-watchdog node-pty
mkdir -p node_modules/@vscode/ripgrep/bin && ln -sfn "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
(cd extensions && npm install --omit=dev)
touch "$DIR/.installed-$VERSION"
echo "install-vscode: code-server $VERSION installed in $DIR"
