#!/usr/bin/env bash
# The README's pictures of `mdgraph site`: the board and an epic's dependency graph of the
# bundled sample backlog (backlog-fixtures/), taken by headless Chromium into docs/img/.
# Usage: scripts/screenshots.sh [MDGRAPH]   (default: a release build of this checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
MDGRAPH=${1:-}
if [ -z "$MDGRAPH" ]; then
  cargo build --release --quiet
  MDGRAPH=target/release/mdgraph
fi
command -v chromium >/dev/null || { echo "chromium is not on PATH (apt-get install chromium)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The site of the fixtures, written outside the repository (the committed _index/ stays as it is).
"$MDGRAPH" --root backlog-fixtures --index-dir "$work/_index" --quiet site --out "$work/site"
shoot() { # page, size, output
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$work/profile" --window-size="$2" \
    --screenshot="$3" "file://$work/site/$1" >/dev/null 2>&1
  echo "wrote $3"
}
shoot board.html 1500,1050 docs/img/site-board.png
shoot graphs/QRY-EPIC-0003.html 1400,760 docs/img/site-epic-graph.png
shoot index.html 1400,1000 docs/img/site-overview.png
# docs/site.md's pictures: the overview, the board, an epic's graph, a superseded
# decision, and the board on a 400 px wide phone.
mkdir -p docs/site
shoot index.html 1400,1100 docs/site/overview.png
shoot board.html 1500,1050 docs/site/board.png
shoot graphs/QRY-EPIC-0003.html 1400,800 docs/site/epic-graph.png
shoot items/ADR-0002.html 1200,900 docs/site/decision.png
shoot board.html 400,900 docs/site/board-400px.png
