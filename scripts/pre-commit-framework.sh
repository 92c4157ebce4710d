#!/usr/bin/env bash
# Exercise .pre-commit-hooks.yaml with the real pre-commit tool: install pre-commit into
# a venv, let it build mdgraph from a snapshot of this checkout (language: rust), and in
# a temp git repository holding the sample backlog check that
#   1. `pre-commit try-repo` runs mdgraph-check and it passes on a fresh index;
#   2. with the hooks installed (`pre-commit install`), a commit whose index is stale is
#      refused by mdgraph-check, naming the changed file;
#   3. mdgraph-index (through try-repo) rebuilds the index and fails so it can be staged
#      ("files were modified by this hook"), after which the commit goes through;
#   4. a commit that only deletes an item another refers to (`git rm`) is refused
#      (always_run: no `files` filter matches a deletion).
# Skips (exit 0, with a message) when git, cargo or python3 is missing or pre-commit
# cannot be installed (offline), except under CI=true, where each of those fails (exit 1).
# Usage: scripts/pre-commit-framework.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

skip() {
  if [ "${CI:-}" = true ]; then
    echo "pre-commit-framework: FAILED (CI=true, so no skipping): $*" >&2
    exit 1
  fi
  echo "pre-commit-framework: SKIPPED: $*"
  exit 0
}
for tool in git cargo python3; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not on PATH"
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# pre-commit itself, in a venv kept under target/ between runs.
venv="${PRE_COMMIT_VENV:-$repo/target/pre-commit-venv}"
if [ ! -x "$venv/bin/pre-commit" ]; then
  python3 -m venv "$venv" >/dev/null 2>&1 || skip "python3 -m venv failed"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'pre-commit>=3' ||
    skip "pip install pre-commit failed (offline?)"
fi
pre_commit="$venv/bin/pre-commit"
echo "== $("$pre_commit" --version)"

export PRE_COMMIT_HOME="$work/pre-commit-home"
# `cargo install --path` of the snapshot reuses this checkout's compiled dependencies.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.com GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.com
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

# A snapshot of this checkout (tracked and new files, uncommitted changes included) as
# the hook repository, so one build serves every step.
hooks="$work/hooks-repo"
mkdir -p "$hooks"
(cd "$repo" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$hooks")
git -C "$hooks" init -q
git -C "$hooks" add -A
git -C "$hooks" commit -qm snapshot
rev="$(git -C "$hooks" rev-parse HEAD)"

# The project: the sample backlog, a config in commit mode, a committed index (built by
# this checkout).
proj="$work/project"
mkdir -p "$proj"
cp -r "$repo/backlog-fixtures" "$proj/backlog"
# Commit mode: the index is committed, so a stale one is refused.
printf 'root = "backlog"\nindex_dir = "_index"\ncommit_index = true\n' >"$proj/mdgraph.toml"
cat >"$proj/.pre-commit-config.yaml" <<EOF
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: mdgraph-check
EOF
# The profile of both builds (this checkout's, and pre-commit's `cargo install` of the
# snapshot): release, as a user gets it, unless MDGRAPH_HOOK_PROFILE=debug. .ci/run asks for
# debug, which `cargo test` has already built: the hooks behave the same in either, and two
# release builds cost CI minutes. pre-commit runs `cargo install --bins --root ENV --path .`
# in its clone of the snapshot. With debug, a `cargo` first on PATH answers that one call by
# installing the binary this checkout built (the snapshot holds the same sources; building
# them again from the clone's path rebuilt the whole crate, about 100 s of CI), after
# checking that the call is the one .pre-commit-hooks.yaml implies.
profile="${MDGRAPH_HOOK_PROFILE:-release}"
if [ "$profile" = debug ]; then
  cargo build --quiet --manifest-path "$repo/Cargo.toml"
  shim="$work/cargo-shim"
  mkdir -p "$shim"
  real_cargo="$(command -v cargo)"
  cat >"$shim/cargo" <<SHIM
#!/usr/bin/env bash
set -euo pipefail
[ "\${1:-}" = install ] || exec "$real_cargo" "\$@"
root="" path=""
while [ \$# -gt 0 ]; do
  case "\$1" in
    --root) root="\$2"; shift ;;
    --path) path="\$2"; shift ;;
  esac
  shift
done
[ -n "\$root" ] && [ -f "\$path/Cargo.toml" ] || { echo "cargo shim: unexpected install call" >&2; exit 1; }
diff -rq "\$path/src" "$repo/src" >/dev/null || { echo "cargo shim: the clone is not this checkout" >&2; exit 1; }
mkdir -p "\$root/bin"
cp "$CARGO_TARGET_DIR/debug/mdgraph" "\$root/bin/mdgraph"
echo "cargo shim: installed $CARGO_TARGET_DIR/debug/mdgraph into \$root/bin"
SHIM
  chmod +x "$shim/cargo"
  export PATH="$shim:$PATH"
else
  cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
fi
cd "$proj"
"$CARGO_TARGET_DIR/$profile/mdgraph" index --quiet
git init -q
git add -A
git commit -qm "backlog, config and index"

passed=0
failed=0
expect() { # expect NAME EXIT_CODE PATTERN -- command...
  local name="$1" want="$2" pattern="$3"
  shift 4
  local out code=0
  out="$("$@" 2>&1)" || code=$?
  if [ "$code" -eq "$want" ] && grep -qF -- "$pattern" <<<"$out"; then
    echo "ok: $name"
    passed=$((passed + 1))
  else
    echo "FAILED: $name (exit $code, wanted $want and \"$pattern\"):"
    sed 's/^/    /' <<<"$out"
    failed=$((failed + 1))
  fi
}

echo "== building the hooks (cargo install of the snapshot)"
expect "try-repo: mdgraph-check passes on a fresh index" 0 "mdgraph check" -- \
  "$pre_commit" try-repo "$hooks" mdgraph-check --ref "$rev" --all-files

"$pre_commit" install >/dev/null
task=backlog/items/task/0000/QRY-TSK-0007_implement-resumable-photo-upload-client.md
printf '\nEdited after the index was built.\n' >>"$task"
git add "$task"
expect "a commit with a stale index is refused" 1 \
  "QRY-TSK-0007_implement-resumable-photo-upload-client.md:1:1: error[stale-index]" -- \
  git commit -qm "edit without the index"
expect "try-repo: mdgraph-index rebuilds the index for staging" 1 "files were modified by this hook" -- \
  "$pre_commit" try-repo "$hooks" mdgraph-index --ref "$rev"
git add -A
expect "the commit with the rebuilt index goes through" 0 "" -- \
  git commit -qm "edit with the index"
expect "the new commit is there" 0 "edit with the index" -- git log --oneline -1
# A commit that only deletes an item another one refers to: no staged file matches a
# `files` filter, yet the graph changes (a dangling reference).
git rm -q backlog/decisions/ADR-0004_resumable-photo-uploads-with-tus.md
"$CARGO_TARGET_DIR/$profile/mdgraph" index --quiet || true
git add -A _index
expect "a commit that only deletes a referenced item is refused" 1 "refers to \`ADR-0004\`" -- \
  git commit -qm "delete a referenced decision"
git reset -q --hard

echo "pre-commit-framework: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
