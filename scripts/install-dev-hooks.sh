#!/bin/sh
# Install the contributors' git hooks in this clone: commit-msg (subject `area: summary`
# under 72 characters). mdgraph's own backlog hooks are `mdgraph hook install`.
set -eu
top="$(git rev-parse --show-toplevel)"
hooks="$(git rev-parse --git-path hooks)"
mkdir -p "$hooks"
cp "$top/scripts/commit-msg" "$hooks/commit-msg"
chmod +x "$hooks/commit-msg"
echo "installed $hooks/commit-msg"
