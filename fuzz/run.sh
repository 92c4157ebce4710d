#!/bin/sh
# Run every fuzz target for a few seconds each (one at a time, one job: CPU is shared).
#
#   fuzz/run.sh              # 10 s per target
#   SECS=600 fuzz/run.sh     # longer
#   fuzz/run.sh query        # one target
#   RUNS=1000000 fuzz/run.sh parse   # a fixed number of executions instead of a time
#   SANITIZER=address fuzz/run.sh    # with AddressSanitizer (default: none; mdgraph has no
#                                    # unsafe code, and ASan halves the executions per second)
#
# Targets are built with optimizations plus debug assertions and overflow checks, so an
# arithmetic overflow is a crash too.
#
# Needs a nightly toolchain and cargo-fuzz (`rustup toolchain install nightly`,
# `cargo install cargo-fuzz --locked`). Corpora grow in fuzz/corpus/<target>/ and crashes
# land in fuzz/artifacts/<target>/ (both git-ignored); the first run seeds each corpus
# from the repository's own Markdown, queries and configs. Reproduce a crash with
# `cargo +nightly fuzz run <target> fuzz/artifacts/<target>/crash-...`.
set -eu
cd "$(dirname "$0")/.."
SECS=${SECS:-10}
TARGETS=${*:-parse query config}

seed() {
    dir=fuzz/corpus/$1
    [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && return 0
    mkdir -p "$dir"
    case $1 in
    parse)
        i=0
        find backlog-fixtures tests/fixtures -name '*.md' | sort | while read -r f; do
            i=$((i + 1))
            # First byte: which path the file gets (see fuzz_targets/parse.rs).
            { printf '\001'; cat "$f"; } >"$dir/seed-$i"
        done
        ;;
    query)
        sed -n 's/.*"query": *"\([^"]*\)".*/\1/p' backlog-fixtures/queries.jsonl | while read -r q; do
            printf '\001\144%s' "$q" >"$dir/$(printf '%s' "$q" | cksum | cut -d' ' -f1)"
        done
        ;;
    config)
        cp mdgraph.toml "$dir/mdgraph.toml"
        for f in examples/*.toml; do cp "$f" "$dir/$(basename "$f")"; done
        sed -n '/^```toml$/,/^```$/p' docs/git.md docs/configuration.md | sed '1d;$d' >"$dir/readme.toml"
        ;;
    esac
}

for t in $TARGETS; do
    seed "$t"
    echo "== $t"
    if [ -n "${RUNS:-}" ]; then
        limit="-runs=$RUNS"
    else
        limit="-max_total_time=$SECS"
    fi
    cargo +nightly fuzz run -s "${SANITIZER:-none}" "$t" "fuzz/corpus/$t" -- "$limit" -max_len=${MAX_LEN:-8192} -print_final_stats=1
done
