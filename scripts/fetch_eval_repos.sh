#!/usr/bin/env bash
# Fetch the public spec-folder repositories that eval/spec2-queries.jsonl is written over, each
# at its pinned commit, into DIR (one subfolder per repository, named as the set's `corpus`
# field), with no .git left. Then index each with its own root, as eval/spec2-README.md says.
# MDGRAPH_GIT_BASE replaces https://github.com (a mirror: BASE/owner/name).
# Usage: scripts/fetch_eval_repos.sh DIR
set -euo pipefail
dir="${1:?usage: scripts/fetch_eval_repos.sh DIR}"
base="${MDGRAPH_GIT_BASE:-https://github.com}"
command -v git >/dev/null 2>&1 || { echo "fetch_eval_repos: git is not on PATH" >&2; exit 1; }
mkdir -p "$dir"
failed=0

# name  owner/repository  commit
repos=(
  # Spec Kit, 6 features; the commit is the head of its feature/spec-kit-experiment-clean
  # branch (main later moved the specs out).
  "ae-infinity rkSlalom/ae-infinity-context 96c848219760b73bd7182efbcb72432bc682c040"
  # Kiro, 9 features; a later commit deletes most of .kiro/specs/.
  "moldovadirect caraseli02/MoldovaDirect f7da966ee5a3a4f56ab5fc39a382adabc6aad313"
  # BMAD v4, 21 stories (docs/stories/N.M.story.md, two as N.M-<slug>.story.md).
  "voice-agent Bobert39/voice-agent 5e4ce209e2926c38f5f316585e8e6bd179540434"
  # OpenSpec, 8 changes under openspec/changes/ (one all ticked, seven all open).
  "docusign lizTheDeveloper/docusign_clone db670bb094ca4ce6f6cbfa598ef4afa3be771b67"
)

for line in "${repos[@]}"; do
  read -r name slug commit <<<"$line"
  out="$dir/$name"
  if [ -e "$out" ]; then
    echo "fetch_eval_repos: $out exists; skipped (remove it to fetch again)"
    continue
  fi
  tmp="$(mktemp -d)"
  # GitHub serves a commit by its id; a full fetch is the fallback for servers that do not.
  if git -C "$tmp" init -q &&
    git -C "$tmp" remote add origin "$base/$slug" &&
    { git -C "$tmp" fetch -q --depth 1 origin "$commit" || git -C "$tmp" fetch -q origin '+refs/heads/*:refs/remotes/origin/*'; } &&
    mkdir -p "$out" &&
    git -C "$tmp" archive "$commit" | tar -x -C "$out"; then
    echo "fetch_eval_repos: $slug @ $commit -> $out"
  else
    echo "fetch_eval_repos: FAILED: $slug @ $commit" >&2
    rm -rf "$out"
    failed=1
  fi
  rm -rf "$tmp"
done
exit "$failed"
