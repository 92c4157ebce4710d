#!/usr/bin/env bash
# Fetch the real spec-folder repositories that tests/suite/spec_real.rs checks, each at its
# pinned commit, into DIR (one subfolder per repository, named as the test looks for it),
# with no .git left (the test indexes them untouched). Then:
#   MDGRAPH_SPEC_REPOS=DIR cargo test --test suite -- --ignored spec_real --nocapture
# The two that ../shared/corpora also holds are cut to the folders the corpora keep
# (specs/ and .specify/; docs/), so their figures are the corpora's.
# MDGRAPH_GIT_BASE replaces https://github.com (a mirror: BASE/owner/name).
# Usage: scripts/fetch_spec_repos.sh DIR
set -euo pipefail
dir="${1:?usage: scripts/fetch_spec_repos.sh DIR}"
base="${MDGRAPH_GIT_BASE:-https://github.com}"
command -v git >/dev/null 2>&1 || { echo "fetch_spec_repos: git is not on PATH" >&2; exit 1; }
mkdir -p "$dir"
failed=0

# name  owner/repository  commit  folders to keep (all when empty)
repos=(
  "speckit-toastmasters danscarf/toastmasters-ai-companion 1f9f7f57849b54fe31135c25ec35daacb5a6ac02 specs .specify LICENSE"
  "evolution-of-todo ibrahimgem/evolution-of-todo 8a227abef2b36fcdf6d3fad7484a5a1b02858beb"
  "SpaceWeirdos RockyBoyRC/SpaceWeirdos 1666df89b89b590f4ea738d4d29a40a857da80a5"
  # Kiro features grouped in finished/ and in-progress/.
  "jack hashpass-tech/jack eebf4aaf1a5465e99afb506909c00f4b31be196f"
  # The last commit with its stories: the next one deletes docs/stories/.
  "ferrocodex HillviewCap/ferrocodex 099f36f9a4af102ec330dbfff605f15ced528cc7"
  "bmad-security-design-assistant 7-central/security-design-assistant 9d2aeb9b8267c4b090fac29ef308e5b88dc9ec30 docs LICENSE"
  "HarshJudge HuskyDanny/HarshJudge 15b9109df9baf03da5e3a019ecb9c02d5467c00b"
  # BMAD v6: stories named by their key (docs/stories/1-2-….md).
  "locatrix xvanov/locatrix 3e5e6eaeb5a7d94f3729ab74242d4e1f3444a637"
  # OpenSpec 1.x: changes in progress and archived, capability specs.
  "norish 23492/norish 3e197bb1006de0d4674cacfb05e39f2c115b105a"
  "OpenSpec Fission-AI/OpenSpec f1b521dffac38ed6638689cd28b0c204b1eef0f1"
  # OpenSpec 0.x and 1.x files side by side, written in Chinese.
  "Modulus AGIBuild/Modulus ff4a5b4e893088997ebf328379658affd2892057"
  # Spec Kit with a Japanese template, at its last commit with specs/ (kept: specs, .specify).
  "gwt akiojin/gwt b752e99d385e014e9a238254dd47028989dde4ab specs .specify"
)

for line in "${repos[@]}"; do
  read -r name slug commit keep <<<"$line"
  out="$dir/$name"
  if [ -e "$out" ]; then
    echo "fetch_spec_repos: $out exists; skipped (remove it to fetch again)"
    continue
  fi
  tmp="$(mktemp -d)"
  # GitHub serves a commit by its id; a full fetch is the fallback for servers that do not.
  # shellcheck disable=SC2086 # $keep is a list of paths
  if git -C "$tmp" init -q &&
    git -C "$tmp" remote add origin "$base/$slug" &&
    { git -C "$tmp" fetch -q --depth 1 origin "$commit" || git -C "$tmp" fetch -q origin; } &&
    mkdir -p "$out" &&
    git -C "$tmp" archive "$commit" $keep | tar -x -C "$out"; then
    echo "fetch_spec_repos: $slug @ $commit -> $out"
  else
    echo "fetch_spec_repos: FAILED: $slug @ $commit" >&2
    rm -rf "$out"
    failed=1
  fi
  rm -rf "$tmp"
done
exit "$failed"
