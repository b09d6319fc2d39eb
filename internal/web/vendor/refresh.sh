#!/bin/sh
# refresh.sh installs the front-end libraries pinned in package-lock.json and
# copies their ES module builds into ../static/vendor, which is committed so
# that `go build` never needs Node. Run it after changing package.json:
#
#   cd internal/web/vendor && ./refresh.sh
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --ignore-scripts
out=../static/vendor
rm -rf "$out"
mkdir -p "$out"
copy() { # copy <package path> <file in dist> <name in static/vendor>
	cp "node_modules/$1/$2" "$out/$3"
	# The source map comment points at a file we do not ship.
	sed -i '/^\/\/# sourceMappingURL=/d' "$out/$3"
}
copy preact dist/preact.mjs preact.mjs
copy preact hooks/dist/hooks.mjs preact-hooks.mjs
copy htm dist/htm.mjs htm.mjs
copy @preact/signals-core dist/signals-core.mjs signals-core.mjs
copy @preact/signals dist/signals.mjs signals.mjs
# markdown-it's browser build is one ES module with its dependencies
# (mdurl, uc.micro, entities, linkify-it, punycode.js) bundled in.
copy markdown-it dist/browser/markdown-it.esm.min.mjs markdown-it.mjs
# xterm.js for the Terminal panel: its ES module build, the fit addon and
# its stylesheet.
copy @xterm/xterm lib/xterm.mjs xterm.mjs
copy @xterm/addon-fit lib/addon-fit.mjs xterm-addon-fit.mjs
cp node_modules/@xterm/xterm/css/xterm.css "$out/xterm.css"
for p in preact htm @preact/signals-core @preact/signals markdown-it @xterm/xterm @xterm/addon-fit; do
	printf '%s %s\n' "$p" "$(node -p "require('./node_modules/$p/package.json').version")"
done >"$out/VERSIONS"
cp node_modules/preact/LICENSE "$out/LICENSE-preact"
cp node_modules/htm/LICENSE "$out/LICENSE-htm"
cp node_modules/@preact/signals/LICENSE "$out/LICENSE-signals" 2>/dev/null || true
# markdown-it and the packages its browser build bundles.
cp node_modules/markdown-it/LICENSE "$out/LICENSE-markdown-it"
cp node_modules/mdurl/LICENSE "$out/LICENSE-mdurl"
cp node_modules/uc.micro/LICENSE.txt "$out/LICENSE-uc.micro"
cp node_modules/entities/LICENSE "$out/LICENSE-entities"
cp node_modules/linkify-it/LICENSE "$out/LICENSE-linkify-it"
cp node_modules/punycode.js/LICENSE-MIT.txt "$out/LICENSE-punycode"
cp node_modules/@xterm/xterm/LICENSE "$out/LICENSE-xterm"
cp node_modules/@xterm/addon-fit/LICENSE "$out/LICENSE-xterm-addon-fit"
echo "vendored into $out:" && cat "$out/VERSIONS"
