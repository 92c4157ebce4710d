#!/usr/bin/env python3
"""Deterministic generator of realistic "kano"-layout Markdown backlogs for benchmarks.

Generate a backlog:

    python3 bench/gen_backlog.py OUT_DIR --items N [--seed 1] [--adrs M] [--force]

Edit P% of the item files of an existing backlog in place (for incremental benchmarks):

    python3 bench/gen_backlog.py OUT_DIR --edit-percent 1 --seed 7

Layout: OUT_DIR/items/<typefolder>/<bucket>/<ID>_<slug>.md and
OUT_DIR/decisions/ADR-NNNN_<slug>.md. The same arguments always give byte-identical output
(every random choice comes from random.Random streams seeded from --seed, iteration is in a
fixed order, nothing depends on hash order, the clock or the platform). Standard library only.
"""

from __future__ import annotations

import argparse
import bisect
import os
import re
import shutil
import sys
import time
from datetime import date, datetime, timedelta, timezone
from random import Random

# --------------------------------------------------------------------------------------
# Vocabulary (fixed; independent of the seed). Roughly most-common-first: the order is the
# Zipf rank, so the first terms of each list are the frequent ones.
# --------------------------------------------------------------------------------------

_NOUNS = """
sync cache token index schema migration retry queue worker latency request response session
client server endpoint payload batch cursor snapshot replica shard partition lock transaction
commit rollback timeout deadline backoff quota budget metric trace span log alert dashboard
config flag rollout release build pipeline deploy artifact image container cluster node service
gateway proxy router handler middleware parser serializer encoder decoder buffer stream channel
socket connection pool thread task job scheduler event message topic subscriber publisher
consumer producer offset checkpoint watermark window aggregate projection view table column row
key value field record document blob bucket object file folder path manifest lockfile dependency
package module crate library binary plugin extension hook callback promise future executor
runtime heap stack allocator arena memory disk network bandwidth throughput capacity backlog
ticket issue epic story sprint milestone roadmap owner reviewer approver tenant user account role
permission policy scope claim credential secret certificate vault signature hash digest checksum
nonce salt cipher password login logout signup invite email notification webhook search query
filter facet ranking score relevance embedding vector chunk section heading link graph edge
vertex cycle tree hierarchy parent child sibling ancestor frontmatter markdown template
renderer report export import upload download attachment thumbnail photo preview editor
selection clipboard undo history changelog version tag branch merge conflict rebase diff patch
hunk review approval test fixture mock stub harness benchmark profile regression flake coverage
assertion invariant contract interface trait struct enum variant macro generic lifetime closure
iterator adapter facade wrapper shim polyfill fallback default override setting preference
locale timezone timestamp clock drift skew jitter heartbeat lease election leader follower
quorum consensus gossip membership discovery registry catalog inventory audit compliance
retention archive backup restore recovery failover outage incident postmortem runbook escalation
error exception panic crash leak deadlock race starvation contention hotspot bottleneck spike
burst storm device tablet browser desktop app screen page form button modal dialog menu toolbar
sidebar layout theme font icon animation gesture connectivity signal battery storage sqlite
postgres redis kafka s3 grpc http2 oauth2 oidc jwt saml tls dns cdn balancer firewall vpn
subnet region zone datacenter kubernetes helm terraform ansible docker registry daemon agent
probe sidecar mesh ingress egress certificate keystore truststore hsm kms rotation revocation
expiry ttl eviction prefetch warmup compaction vacuum tombstone changelog outbox inbox saga
orchestrator choreography workflow state machine transition guard effect reducer store selector
action dispatcher observer listener emitter bus broker cron interval debounce throttle semaphore
mutex barrier latch condvar atomic fence epoch generation counter gauge histogram percentile
quantile sample cardinality label dimension tenant org workspace project team member seat plan
invoice subscription payment refund charge ledger balance currency tax discount coupon trial
onboarding wizard tour tooltip banner toast badge avatar profile feed timeline comment mention
reaction thread inbox draft outline note journal worklog checklist criterion estimate priority
severity label assignee watcher due date sla slo sli uptime availability durability consistency
isolation idempotency ordering causality linearizability serializability visibility
freshness staleness accuracy recall precision coverage determinism reproducibility portability
accessibility localization telemetry instrumentation sampling redaction anonymization consent
gdpr encryption signing hashing tokenizer stemmer analyzer lexer grammar ast visitor codegen
compiler linker loader bundler minifier transpiler formatter linter typechecker sandbox
container vm kernel syscall inode mmap fsync wal pager btree lsm memtable sstable bloom
posting doc corpus shingle ngram trigram bm25 tfidf reranker retriever prompt context completion
model inference quantization batching streaming backpressure pagination sorting grouping join
denormalization normalization foreign constraint trigger procedure sequence uuid ulid slug alias
redirect permalink sitemap crawler scraper feed importer exporter converter validator sanitizer
escaper quoting encoding utf8 bom newline whitespace indentation yaml toml json csv xml protobuf
avro parquet arrow msgpack gzip zstd brotli lz4 tar zip checksum signature
""".split()

_PHRASES = """
rate limiter, circuit breaker, dead letter queue, write-ahead log, read replica, connection pool,
feature flag, blue-green deploy, canary release, cold start, warm cache, hot path, critical path,
thundering herd, back pressure, exponential backoff, idempotency key, optimistic lock,
pessimistic lock, vector clock, hybrid logical clock, conflict resolution, data model,
access token, refresh token, session cookie, service account, api key, error budget,
p99 latency, cache hit ratio, garbage collection, memory pressure, file watcher,
incremental build, full rebuild, content hash, inverted index, posting list, query planner,
full-text search, stop word, change data capture, event sourcing, command handler, read model,
write model, bounded context, aggregate root, domain event, integration test, unit test,
end-to-end test, smoke test, load test, chaos test, property test, golden file, snapshot test,
test matrix, build cache, release train, version bump, breaking change, deprecation window,
migration script, schema version, backfill job, reindex job, nightly job, cron schedule,
health check, readiness probe, liveness probe, graceful shutdown, hot reload, config drift,
secret rotation, key rotation, certificate renewal, single sign-on, multi-factor auth,
role-based access, row-level security, audit trail, access log, slow query log, query plan,
sequential scan, index scan, covering index, partial index, composite key, primary key,
foreign key, unique constraint, soft delete, hard delete, tombstone sweep, retention policy,
backup window, point-in-time recovery, disaster recovery, failover drill, on-call rotation,
incident review, status page, error rate, request rate, queue depth, consumer lag, tail latency,
cold cache, cache stampede, cache key, cache invalidation, write amplification,
read amplification, space amplification, compaction debt, merge policy, segment merge,
sync cursor, sync conflict, offline queue, upload session, resumable upload, chunked upload,
presigned url, object storage, blob store, content delivery, image pipeline, thumbnail cache,
pdf renderer, report template, export job, import wizard, csv export, bulk edit, bulk import,
search index, search ranking, ranking signal, relevance score, query parser, query rewrite,
synonym list, spell correction, result snippet, highlight span, facet count, embedding model,
vector index, nearest neighbour, chunk size, context window, token budget, prompt template,
dependency graph, parent link, child count, orphaned item, dangling reference, broken link,
duplicate id, id collision, stable id, node id, edge type, graph traversal, shortest path,
topological order, cycle detection, fan-out, fan-in, hot partition, shard key,
consistent hashing, leader election, split brain, clock skew, lease renewal, heartbeat timeout,
request timeout, retry budget, retry storm, jitter window, admission control, load shedding,
priority queue, work queue, job runner, task scheduler, thread pool, async runtime,
event loop, memory leak, file descriptor, open handle, lock contention, hot loop, busy wait,
release notes, migration guide, api reference, user guide, design doc, decision record,
acceptance test, definition of done, story points, sprint goal, tech debt, code review,
pull request, merge queue, ci pipeline, build matrix, flaky test, test flake, code owner,
lint rule, format check, type check, dead code, public api, semver policy, changelog entry
""".replace("\n", " ").split(",")

# Compound terms are made from these: "<modifier> <head>".
_MODIFIERS = """
sync cache token index schema retry queue upload search auth session billing tenant audit export
report photo event metrics config release webhook storage network render import notification
permission workflow backlog graph plugin build deploy test log trace job batch stream snapshot
checkpoint ranking embedding chunk link parser editor device mobile offline api cli query
signature payment invoice thumbnail timeline comment worklog checklist
""".split()
_HEADS = """
budget layer window policy handler worker service store table endpoint client adapter pipeline
format version key limit timeout threshold counter histogram dashboard runbook fixture flag guard
manifest registry cursor buffer status state error path record entry view panel scheduler
contract module backend frontend latency throughput size quota cleanup retry migration
""".split()

_VERBS = """
add remove cache index sync retry validate parse serialize migrate refactor split merge batch
stream throttle debounce deduplicate normalize compress encrypt sign verify rotate revoke expire
invalidate prefetch preload paginate sort filter rank score embed chunk resolve render export
import upload download persist flush compact prune archive restore replicate shard partition
lock unlock schedule enqueue dispatch route proxy log trace measure profile benchmark monitor
instrument expose hide deprecate document test mock stub fix patch harden tune optimize simplify
extract inline rename move reuse share isolate scope gate ship release tag pin bump upgrade
configure detect report handle reject accept skip ignore clamp cap limit bound reconcile backfill
reindex rebuild rerun refresh reload restart drain warm evict load store fetch query search
match map reduce group aggregate emit publish subscribe consume acknowledge replay rewind
checkpoint snapshot diff apply preview approve review roll+out roll+back wire+up
clean+up split+out
""".split()

_ADJECTIVES = """
stale flaky slow fast idempotent atomic durable transient persistent incremental deterministic
lazy eager async blocking concurrent parallel sequential partial full empty missing duplicate
orphaned dangling corrupt truncated oversized unbounded bounded redundant legacy deprecated
experimental stable critical noisy silent verbose expensive cheap hot cold warm shared isolated
global local remote offline online cached encrypted signed unsigned public private internal
external optional mandatory default custom dynamic static manual automatic scheduled on-demand
batched streamed compressed sorted unsorted tenant-scoped per-user read-only write-heavy
read-heavy latency-sensitive high-cardinality low-priority backward-compatible breaking
reproducible resumable retryable observable configurable pluggable versioned immutable mutable
eventual strict lenient sparse dense nested flat
""".split()

_BAD_ADJECTIVES = """
stale flaky slow corrupt truncated duplicate missing dangling orphaned noisy unbounded
inconsistent wrong empty blank broken stuck frozen leaking racy nondeterministic
""".split()

_ROLES = """
inspector, site manager, admin, support engineer, developer, reviewer, operator, tenant admin,
auditor, analyst, release manager, on-call engineer, product owner, field technician, new user,
team lead, maintainer, contributor, billing admin, guest
""".replace("\n", " ").split(",")

AREAS = """sync auth search storage api mobile web billing reporting infra observability indexing
cli notifications onboarding security data""".split()
OWNERS = """dana.k miguel.r aiko.t sam.o priya.n lena.b tom.h ines.v jonas.w omar.f chen.l maria.g
yusuf.a eva.s raj.p nora.m felix.d zoe.c ken.i ana.j""".split()
TAGS = """sync perf security ux api mobile web infra tech-debt flaky-test migration observability
docs a11y search indexing cache auth billing release regression oncall data cli storage
offline reliability cost compliance dx""".split()
AGENTS = "codex claude copilot gemini cursor human".split()
STATES = ["Proposed", "Planned", "Ready", "InProgress", "Review", "Done", "Blocked", "Dropped"]
STATE_W = [8, 9, 9, 12, 6, 44, 5, 7]
PRIORITIES = ["P0", "P1", "P2", "P3"]
PRIORITY_W = [5, 22, 48, 25]
EXTS = ["rs", "ts", "go", "py", "sql", "toml", "yaml"]

# Item types: (key, folder, id prefix, type value, share of N).
TYPES = [
    ("epic", "epic", "EPIC", "Epic", 0.02),
    ("feature", "feature", "FTR", "Feature", 0.08),
    ("userstory", "userstory", "USR", "UserStory", 0.25),
    ("task", "task", "TSK", "Task", 0.55),
    ("bug", "bug", "BUG", "Bug", 0.10),
]
# Parent pools per type: list of (parent type, probability); epics have none.
PARENTS = {
    "epic": [],
    "feature": [("epic", 1.0)],
    "userstory": [("feature", 1.0)],
    "task": [("userstory", 0.85), ("feature", 0.15)],
    "bug": [("feature", 0.5), ("userstory", 0.5)],
}
# Body length factor per type (tuned so the average item is about 1.5 KB).
LENGTH = {"epic": 1.8, "feature": 1.4, "userstory": 1.0, "task": 0.8, "bug": 0.9}

START = date(2025, 3, 3)
END = date(2026, 2, 27)
ID_PREFIX = "GEN"


def _dedupe(xs):
    seen, out = set(), []
    for x in xs:
        x = x.strip().replace("+", " ")
        if x and x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _build_vocab():
    singles = _dedupe(_NOUNS)
    phrases = _dedupe(_PHRASES)
    compounds = [f"{m} {h}" for m in _dedupe(_MODIFIERS) for h in _dedupe(_HEADS) if m != h]
    r = Random(20250301)  # fixed: the vocabulary never depends on --seed
    r.shuffle(compounds)
    verbs = _dedupe(_VERBS)
    adjs = _dedupe(_ADJECTIVES)
    # ~2000 terms in all: singles and hand-written phrases first, then compounds.
    budget = max(0, 2000 - len(singles) - len(phrases) - len(verbs) - len(adjs))
    used = set(singles) | set(phrases)
    compounds = [c for c in compounds if c not in used][:budget]
    # Interleave phrases into the single nouns so some phrases are frequent too.
    nouns = []
    pi = 0
    for i, s in enumerate(singles):
        nouns.append(s)
        if i % 3 == 2 and pi < len(phrases):
            nouns.append(phrases[pi])
            pi += 1
    nouns.extend(phrases[pi:])
    nouns.extend(compounds)
    return nouns, verbs, adjs


NOUN_LIST, VERB_LIST, ADJ_LIST = _build_vocab()
ROLE_LIST = _dedupe(_ROLES)
BAD_ADJ_LIST = _dedupe(_BAD_ADJECTIVES)

_DOUBLE = {"log", "tag", "pin", "ship", "map", "cap", "skip", "emit", "stub", "drop", "plan",
           "embed", "rerun", "run", "scan", "trim", "strip", "wrap", "swap", "stop", "split"}
_IRREGULAR_PAST = {"build": "built", "rebuild": "rebuilt", "split": "split", "run": "ran",
                   "rerun": "reran", "hide": "hid", "store": "stored"}


def _third(v):
    head, sep, rest = v.partition(" ")
    if head.endswith(("s", "sh", "ch", "x", "z")):
        h = head + "es"
    elif head.endswith("y") and head[-2:-1] not in "aeiou":
        h = head[:-1] + "ies"
    else:
        h = head + "s"
    return h + sep + rest


def _past(v):
    head, sep, rest = v.partition(" ")
    if head in _IRREGULAR_PAST:
        h = _IRREGULAR_PAST[head]
    elif head in _DOUBLE:
        h = head + head[-1] + "ed"
    elif head.endswith("e"):
        h = head + "d"
    elif head.endswith("y") and head[-2:-1] not in "aeiou":
        h = head[:-1] + "ied"
    else:
        h = head + "ed"
    return h + sep + rest


def _ing(v):
    head, sep, rest = v.partition(" ")
    if head in _DOUBLE:
        h = head + head[-1] + "ing"
    elif head.endswith("e") and not head.endswith("ee"):
        h = head[:-1] + "ing"
    else:
        h = head + "ing"
    return h + sep + rest


VERB_FORMS = [(v, _third(v), _past(v), _ing(v)) for v in VERB_LIST]


class Zipf:
    """Pick from a list with probability proportional to 1 / rank**s."""

    def __init__(self, items, s=1.0):
        self.items = list(items)
        cw, t = [], 0.0
        for r in range(1, len(self.items) + 1):
            t += 1.0 / r ** s
            cw.append(t)
        self.cw, self.total, self.last = cw, t, len(self.items) - 1

    def index(self, rng):
        return min(bisect.bisect(self.cw, rng.random() * self.total), self.last)

    def pick(self, rng):
        return self.items[self.index(rng)]


class Weighted:
    """Pick an index with given weights (cumulative + bisect)."""

    def __init__(self, weights):
        cw, t = [], 0.0
        for w in weights:
            t += w
            cw.append(t)
        self.cw, self.total, self.last = cw, t, len(cw) - 1

    def index(self, rng):
        return min(bisect.bisect(self.cw, rng.random() * self.total), self.last)


NOUNS_Z = Zipf(NOUN_LIST, 1.0)
VERBS_Z = Zipf(VERB_FORMS, 0.9)
ADJ_Z = Zipf(ADJ_LIST, 0.9)
STATE_PICK = Weighted(STATE_W)
Zipf_OWNERS = Zipf(OWNERS, 0.8)
PRIO_PICK = Weighted(PRIORITY_W)

# --------------------------------------------------------------------------------------
# Sentence templates. Slots: N noun, A adjective, B "bad" adjective, V/Vs/Ved/Ving verb forms
# (one verb per template use, shared), V2 a second verb, R role, NUM count, MS duration,
# CODE a code path, FLAG a flag name, PCT percentage.
# --------------------------------------------------------------------------------------

T_CONTEXT = """
The {N} {Vs} the {N} on every {N}, which makes the {N} {A} under load.
Today the {N} is {B} because the {N} {Vs} the {N} twice per {N}.
Users report a {B} {N} when the {N} {Vs} during {N}.
Since the {N} was {Ved}, the {N} regressed to {MS} at p95.
We need the {N} to {V} the {N} without {Ving} the {N}.
The current {N} {Vs} {NUM} {N} entries per {N}, which is {A} for large tenants.
Every {R} depends on the {N} being {A}, but the {N} is still {B}.
When the {N} times out, the {N} falls back to a {A} {N} and the {N} becomes {B}.
Most of the {N} time is spent in the {N}, according to the {N} traces from last sprint.
The {N} and the {N} share one {N}, so a {B} {N} affects both.
A {R} cannot {V2} the {N} while the {N} is {B}.
Support tickets about the {B} {N} grew by {PCT} after the last {N} release.
The {N} was designed for a {A} {N}, not for the {N} we run today.
Without a {A} {N}, the {N} {Vs} the {N} on each {N} and wastes {MS}.
Profiling shows {PCT} of {N} requests wait on the {N}.
The {A} {N} keeps the {N} simple, but it hides {B} {N} state from the {N}.
""".strip().splitlines()

T_GOAL = """
{V} the {N} so that the {N} stays {A} under load.
The {N} {Vs} the {N} within {MS} and never leaves a {B} {N} behind.
A {R} can {V2} the {N} without waiting for the {N}.
Reduce {N} latency to under {MS} for {PCT} of {N} requests.
The {N} is {A} and {A} across restarts of the {N}.
{V} every {N} exactly once, even when the {N} is retried.
""".strip().splitlines()

T_APPROACH = """
- {V} the {N} in {CODE} and keep the {N} {A}.
- Add a {A} {N} behind the {FLAG} flag.
- Reuse the {N} from the {N} instead of {Ving} a new {N}.
- Store the {N} next to the {N} so that a {B} {N} is detected early.
- {V} the {N} in batches of {NUM} and cap the {N} at {MS}.
- Move the {N} logic out of the {N} into {CODE}.
- Emit a {N} metric for every {B} {N} and alert on the {N}.
- Keep the old {N} path until the {N} rollout reaches {PCT}.
- Write a {A} {N} test that covers the {B} {N} case.
- {V} the {N} on the {N} and {V2} the {N} on the {N}.
""".strip().splitlines()

T_AC = """
The {N} {Vs} the {N} within {MS}.
No {B} {N} after {NUM} retries of the {N}.
A {R} sees the {N} in the {N} view.
The {N} test suite passes with the {FLAG} flag on and off.
The {N} dashboard shows the {N} rate per {N}.
Restarting the {N} keeps the {N} {A}.
The {A} {N} is documented in the {N} runbook.
{NUM} concurrent {N} requests finish without a {B} {N}.
""".strip().splitlines()

T_WORK = """
{Ved} the {N}; {N} tests green.
Opened a PR for the {N} change.
Review feedback on the {N} addressed.
Found a {B} {N} while testing the {N}; fixing it first.
{Ved} the {N} behind {FLAG}.
Benchmarked the {N}: {MS} at p95.
Paired on the {N} with the {N} owner.
Split the {N} work into smaller steps.
""".strip().splitlines()

T_DECISION = """
We {V} the {N} with a {A} {N} and keep the {N} {A}.
The {N} {Vs} the {N} through a single {N}, owned by the {N} team.
Each {N} carries a {N} so the {N} can {V2} it without a {N}.
The {N} is {A} by default; the {FLAG} flag turns on the {A} {N}.
""".strip().splitlines()

T_CONSEQUENCE = """
- The {N} must {V} the {N} before the {N} starts.
- A {B} {N} now fails fast with a clear {N} error.
- The {N} costs about {MS} per {N}, which is acceptable.
- The {N} and the {N} must be upgraded together.
- Operators need a runbook for the {N}.
- The {A} {N} can be removed once the {N} migration is done.
""".strip().splitlines()

_SLOT = re.compile(r"\{(\w+)\}")


def _compile(templates):
    out = []
    for t in templates:
        parts = _SLOT.split(t)
        out.append(parts)  # even indices: literal, odd: slot
    return out


C_CONTEXT, C_GOAL, C_APPROACH = _compile(T_CONTEXT), _compile(T_GOAL), _compile(T_APPROACH)
C_AC, C_WORK = _compile(T_AC), _compile(T_WORK)
C_DECISION, C_CONSEQUENCE = _compile(T_DECISION), _compile(T_CONSEQUENCE)


_ARTICLE = re.compile(r"\b([Aa]) (?=[aeiou8])(?!u[bcdfghjklmnpqrstvwxyz][aeiou]|uni|uu|ul|utf|one)")


def fix_articles(s):
    return _ARTICLE.sub(r"\1n ", s) if " a " in s or s[:2] in ("A ", "a ") else s


def cap(s):
    return s[:1].upper() + s[1:]


class Text:
    """Fills templates. Nouns come from a per-document topic (so documents have distinctive
    terms for BM25) or from the global Zipf distribution."""

    def __init__(self, rng):
        self.rng = rng
        self.topic = []

    def noun(self):
        r = self.rng
        if self.topic and r.random() < 0.3:
            return self.topic[int(r.random() * len(self.topic))]
        return NOUNS_Z.pick(r)

    def fill(self, parts):
        r = self.rng
        verb = VERBS_Z.pick(r)
        out = []
        for i, p in enumerate(parts):
            if not i & 1:
                out.append(p)
                continue
            if p == "N":
                out.append(self.noun())
            elif p == "A":
                out.append(ADJ_Z.pick(r))
            elif p == "B":
                out.append(BAD_ADJ_LIST[int(r.random() * len(BAD_ADJ_LIST))])
            elif p == "V":
                out.append(verb[0])
            elif p == "Vs":
                out.append(verb[1])
            elif p == "Ved":
                out.append(verb[2])
            elif p == "Ving":
                out.append(verb[3])
            elif p == "V2":
                out.append(VERBS_Z.pick(r)[0])
            elif p == "R":
                out.append(ROLE_LIST[int(r.random() * len(ROLE_LIST))])
            elif p == "NUM":
                out.append(str(r.choice((2, 3, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100, 128, 200, 500, 1000))))
            elif p == "MS":
                out.append(r.choice(("5 ms", "10 ms", "20 ms", "50 ms", "80 ms", "100 ms", "200 ms", "250 ms",
                                     "500 ms", "1 s", "2 s", "5 s", "30 s")))
            elif p == "PCT":
                out.append(f"{r.choice((1, 2, 5, 10, 20, 25, 40, 50, 75, 90, 95, 99))}%")
            elif p == "CODE":
                a = NOUNS_Z.pick(r).replace(" ", "_")
                b = NOUNS_Z.pick(r).replace(" ", "_")
                out.append(f"`src/{a}/{b}.{r.choice(EXTS)}`")
            elif p == "FLAG":
                a = self.noun().replace(" ", "_").replace("-", "_")
                out.append(f"`{a}_{r.choice(('v2', 'enabled', 'rollout', 'strict', 'fast_path'))}`")
            else:  # pragma: no cover - template typo
                raise KeyError(p)
        s = fix_articles("".join(out))
        if s.startswith("- "):
            return "- " + cap(s[2:])
        return cap(s)

    def sentences(self, compiled, k):
        r = self.rng
        return [self.fill(compiled[int(r.random() * len(compiled))]) for _ in range(k)]


def slugify(title, limit=48):
    s = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    if len(s) > limit:
        cut = s[:limit]
        s = cut.rsplit("-", 1)[0] if "-" in cut else cut
    return s or "item"


def relpath(target, src_dir):
    """Relative path from folder src_dir to file target (both root-relative, '/')."""
    t = target.split("/")
    s = src_dir.split("/") if src_dir else []
    i = 0
    while i < len(t) - 1 and i < len(s) and t[i] == s[i]:
        i += 1
    return "/".join([".."] * (len(s) - i) + t[i:])


def iteration_of(d):
    q = (d.month - 1) // 3 + 1
    qstart = date(d.year, 3 * (q - 1) + 1, 1)
    sprint = min(6, (d - qstart).days // 14 + 1)
    return f"{d.year}-Q{q}-S{sprint}"


def ylist(xs):
    return "[" + ", ".join(xs) + "]"


def yquote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --------------------------------------------------------------------------------------
# Structure
# --------------------------------------------------------------------------------------


class Doc:
    __slots__ = ("key", "num", "id", "type", "title", "rel", "dir", "state", "priority", "parent",
                 "area", "tags", "created", "updated", "owner", "relates", "blocks", "blocked_by",
                 "decisions", "uid", "children", "topic", "status", "supersedes", "superseded_by",
                 "related", "day")

    def __init__(self):
        for s in self.__slots__:
            setattr(self, s, None)


def type_counts(n):
    shares = [t[4] for t in TYPES]
    raw = [n * s for s in shares]
    counts = [int(x) for x in raw]
    rem = n - sum(counts)
    order = sorted(range(len(raw)), key=lambda i: (-(raw[i] - counts[i]), i))
    for i in order[:rem]:
        counts[i] += 1
    # Small N: make sure there is an epic and a feature to hang things on.
    for need in (0, 1):
        if n > need and counts[need] == 0:
            donor = max(range(len(counts)), key=lambda i: (counts[i], -i))
            counts[donor] -= 1
            counts[need] += 1
    return counts


class UidMaker:
    """UUIDv7-shaped ids: 48-bit ms timestamp from the document's date, version 7, variant 8.
    The first 8 hex digits (the top 32 bits of the timestamp, ~65 s units) are unique."""

    def __init__(self, rng):
        self.rng = rng
        self.used = set()

    def make(self, d):
        r = self.rng
        base = int(datetime(d.year, d.month, d.day, tzinfo=timezone.utc).timestamp() * 1000)
        unit = (base + int(r.random() * 86_400_000)) >> 16
        while unit in self.used:
            unit += 1
        self.used.add(unit)
        ms = (unit << 16) | r.getrandbits(16)
        h = f"{ms:012x}"
        return f"{h[:8]}-{h[8:12]}-7{r.getrandbits(12):03x}-8{r.getrandbits(12):03x}-{r.getrandbits(48):012x}"


def rand_date(rng, lo, hi):
    span = (hi - lo).days
    return lo + timedelta(days=int(rng.random() * (span + 1)))


def build_structure(n_items, n_adrs, seed):
    rng = Random(f"mdgraph-gen:{seed}:structure")
    trng = Random(f"mdgraph-gen:{seed}:titles")
    text = Text(trng)
    counts = type_counts(n_items)
    by_type = {}
    all_items = []
    for (key, folder, prefix, tval, _), cnt in zip(TYPES, counts):
        # Creation dates increase with the number within a type.
        dates = sorted(rand_date(rng, START, END - timedelta(days=20)) for _ in range(cnt))
        lst = []
        for i in range(cnt):
            d = Doc()
            d.key, d.num, d.type = key, i + 1, tval
            d.id = f"{ID_PREFIX}-{prefix}-{d.num:04d}"
            d.created = dates[i]
            d.children = []
            d.relates, d.blocks, d.blocked_by, d.decisions = [], [], [], []
            lst.append(d)
            all_items.append(d)
        by_type[key] = lst

    # Parents: Zipf over a shuffled parent list mixed with a uniform share, so a few parents
    # get very many children and most get a few.
    pickers = {}
    for key in ("epic", "feature", "userstory"):
        pool = by_type[key]
        if not pool:
            continue
        order = list(range(len(pool)))
        rng.shuffle(order)
        w = [0.0] * len(pool)
        h = sum(1.0 / (r + 1) ** 1.1 for r in range(len(pool)))
        for rank, idx in enumerate(order):
            w[idx] = 0.75 * (1.0 / (rank + 1) ** 1.1) / h + 0.25 / len(pool)
        pickers[key] = (pool, Weighted(w))
    fallback = {"feature": ["epic"], "userstory": ["feature", "epic"], "task": ["userstory", "feature", "epic"],
                "bug": ["feature", "userstory", "epic"]}
    for key, _, _, _, _ in TYPES:
        for d in by_type[key]:
            opts = PARENTS[key]
            if not opts:
                continue
            x = rng.random()
            acc, ptype = 0.0, opts[-1][0]
            for t, p in opts:
                acc += p
                if x < acc:
                    ptype = t
                    break
            if ptype not in pickers:
                ptype = next((t for t in fallback[key] if t in pickers), None)
                if ptype is None:
                    continue
            pool, wp = pickers[ptype]
            parent = pool[wp.index(rng)]
            d.parent = parent
            parent.children.append(d)
            if d.created < parent.created:
                d.created = min(parent.created + timedelta(days=int(rng.random() * 10)), END - timedelta(days=1))

    # Fields.
    for d in all_items:
        d.state = STATES[STATE_PICK.index(rng)]
        d.priority = PRIORITIES[PRIO_PICK.index(rng)]
        d.area = d.parent.area if d.parent is not None and rng.random() < 0.7 else AREAS[int(rng.random() * len(AREAS))]
        k = (0, 1, 1, 2, 2, 2, 3)[int(rng.random() * 7)]
        d.tags = sorted({TAGS[int(rng.random() * len(TAGS))] for _ in range(k)})
        age = (END - d.created).days
        frac = rng.random() ** (0.5 if d.state in ("Done", "Dropped") else 1.5)
        d.updated = d.created + timedelta(days=int(frac * age))
        d.owner = OWNERS[Zipf_OWNERS.index(rng)]
        d.title, nouns = make_title(text, d)
        d.topic = topic_terms(trng, nouns)

    # Links: relates (not mirrored), blocks mirrored into blocked_by.
    non_epics = [d for d in all_items if d.key != "epic"] or all_items
    def pick_other(d):
        if d.parent is not None and len(d.parent.children) > 1 and rng.random() < 0.5:
            return d.parent.children[int(rng.random() * len(d.parent.children))]
        return non_epics[int(rng.random() * len(non_epics))]

    REL_K = Weighted([55, 30, 10, 5])
    BLK_K = Weighted([80, 15, 4, 1])
    for d in all_items:
        for _ in range(REL_K.index(rng)):
            t = pick_other(d)
            if t is not d and t.id not in d.relates:
                d.relates.append(t.id)
        if d.key == "epic":
            continue
        for _ in range(BLK_K.index(rng)):
            t = pick_other(d)
            if (t is d or t.key == "epic" or t.id in d.blocks or t.id in d.blocked_by
                    or len(t.blocked_by) >= 3 or len(d.blocks) >= 3):
                continue
            d.blocks.append(t.id)
            t.blocked_by.append(d.id)

    # ADRs.
    adrs = []
    adr_dates = sorted(rand_date(rng, START - timedelta(days=60), END - timedelta(days=5)) for _ in range(n_adrs))
    for i in range(n_adrs):
        a = Doc()
        a.key, a.num, a.type = "adr", i + 1, "ADR"
        a.id = f"ADR-{a.num:04d}"
        a.created = a.updated = adr_dates[i]
        a.supersedes, a.superseded_by, a.related = [], [], []
        a.status = "Accepted" if rng.random() < 0.8 else "Proposed"
        adrs.append(a)
    if n_adrs >= 2:
        n_sup = max(1, round(0.05 * n_adrs))
        cands = list(range(n_adrs - 1))
        rng.shuffle(cands)
        done = 0
        for i in cands:
            if done >= n_sup:
                break
            old = adrs[i]
            later = [a for a in adrs[i + 1:] if not a.supersedes]
            if not later or old.superseded_by:
                continue
            new = later[int(rng.random() * len(later))]
            old.status = "Superseded"
            old.superseded_by.append(new.id)
            new.supersedes.append(old.id)
            new.status = "Accepted"
            done += 1
    for a in adrs:
        a.title, nouns = make_adr_title(text, a)
        a.topic = topic_terms(trng, nouns)
        a.rel = f"decisions/{a.id}_{slugify(a.title)}.md"
        a.dir = "decisions"

    # Item -> ADR references (~20% of items, 1-2 each, some ADRs referenced a lot).
    if adrs:
        order = list(range(len(adrs)))
        rng.shuffle(order)
        adr_z = Zipf([adrs[i] for i in order], 0.8)
        for d in all_items:
            if rng.random() < 0.2:
                for _ in range(1 if rng.random() < 0.7 else 2):
                    a = adr_z.pick(rng)
                    if a.id not in d.decisions:
                        d.decisions.append(a.id)
                        a.related.append(d)
        for a in adrs:
            rel = sorted(a.related, key=lambda x: x.id)
            if len(rel) > 5:
                rel = sorted(rng.sample(rel, 5), key=lambda x: x.id)
            while len(rel) < 1 + int(rng.random() * 2) and len(rel) < len(all_items):
                x = all_items[int(rng.random() * len(all_items))]
                if x not in rel:
                    rel.append(x)
            a.related = [x.id for x in sorted(rel, key=lambda x: x.id)]

    for d in all_items:
        d.relates.sort()
        d.blocks.sort()
        d.blocked_by.sort()
        d.decisions.sort()
        folder = d.key
        d.dir = f"items/{folder}/{(d.num // 100) * 100:04d}"
        d.rel = f"{d.dir}/{d.id}_{slugify(d.title)}.md"

    uids = UidMaker(Random(f"mdgraph-gen:{seed}:uid"))
    for d in all_items + adrs:
        d.uid = uids.make(d.created)
    return all_items, adrs

_TITLE_TAILS = ("platform", "foundation", "overhaul", "program", "initiative", "rollout", "modernization")


def make_title(text, d):
    r = text.rng
    n1, n2 = NOUNS_Z.pick(r), NOUNS_Z.pick(r)
    v = VERBS_Z.pick(r)
    a = ADJ_Z.pick(r)
    k = d.key
    c = int(r.random() * 3)
    if k == "epic":
        t = [f"{cap(a)} {n1} {r.choice(_TITLE_TAILS)}", f"{cap(n1)} and {n2} {r.choice(_TITLE_TAILS)}",
             f"{cap(a)} {n1} for every {n2}"][c]
    elif k == "feature":
        t = [f"{cap(a)} {n1} for {n2}", f"{cap(n1)} {n2} support", f"{cap(v[0])} {n1} in the {n2}"][c]
    elif k == "userstory":
        role = ROLE_LIST[int(r.random() * len(ROLE_LIST))]
        t = [f"As a {role}, I can {v[0]} the {n1}", f"{cap(v[0])} a {n1} without the {n2}",
             f"See the {a} {n1} in the {n2}"][c]
    elif k == "task":
        t = [f"{cap(v[0])} the {n1} in the {n2}", f"{cap(v[0])} {a} {n1}", f"{cap(v[0])} {n1} for {n2}"][c]
    else:
        b = BAD_ADJ_LIST[int(r.random() * len(BAD_ADJ_LIST))]
        t = [f"{cap(n1)} is {b} after {n2}", f"{cap(n1)} {v[1]} the {n2} twice",
             f"Crash in {n1} when the {n2} is {b}"][c]
    return fix_articles(t), [n1, n2]


def make_adr_title(text, a):
    r = text.rng
    n1, n2 = NOUNS_Z.pick(r), NOUNS_Z.pick(r)
    c = int(r.random() * 3)
    t = [f"Use a {ADJ_Z.pick(r)} {n1} for the {n2}", f"{cap(n1)} with {n2}",
         f"{cap(VERBS_Z.pick(r)[0])} {n1} in the {n2}"][c]
    return fix_articles(t), [n1, n2]


def topic_terms(rng, nouns):
    """The terms a document is about: its title nouns plus one or two more."""
    extra = [NOUNS_Z.pick(rng) for _ in range(1 + int(rng.random() * 2))]
    out = []
    for n in nouns + extra:
        if n not in out:
            out.append(n)
    return out


# --------------------------------------------------------------------------------------
# Bodies
# --------------------------------------------------------------------------------------


def fmt_time(rng):
    return f"{8 + int(rng.random() * 11):02d}:{int(rng.random() * 60):02d}"


def item_frontmatter(d):
    parent = d.parent.id if d.parent is not None else "null"
    return (
        "---\n"
        f"id: {d.id}\n"
        f"uid: {d.uid}\n"
        f"type: {d.type}\n"
        f"title: {yquote(d.title)}\n"
        f"state: {d.state}\n"
        f"priority: {d.priority}\n"
        f"parent: {parent}\n"
        f"area: {d.area}\n"
        f"iteration: {iteration_of(d.updated)}\n"
        f"tags: {ylist(d.tags)}\n"
        f"created: {d.created.isoformat()}\n"
        f"updated: {d.updated.isoformat()}\n"
        f"owner: {d.owner}\n"
        "links:\n"
        f"  relates: {ylist(d.relates)}\n"
        f"  blocks: {ylist(d.blocks)}\n"
        f"  blocked_by: {ylist(d.blocked_by)}\n"
        f"decisions: {ylist(d.decisions)}\n"
        "---\n"
    )


def ref_target(rng, d, items):
    """An existing item to mention: the parent, a linked item, a sibling or a random one."""
    x = rng.random()
    if x < 0.3 and d.parent is not None:
        return d.parent
    if x < 0.5 and d.children:
        return d.children[int(rng.random() * len(d.children))]
    if x < 0.7 and d.parent is not None and len(d.parent.children) > 1:
        return d.parent.children[int(rng.random() * len(d.parent.children))]
    return items[int(rng.random() * len(items))]


_MENTION = ("This builds on {id}.", "See {id} for the earlier {n} work.", "Related: {id}.",
            "The {n} change in {id} has to land first.", "Same root cause as {id}.",
            "{id} tracks the follow-up for the {n}.")
_WIKI = ("Tracked together with [[{id}]].", "Background in [[{id}]].", "Depends on the {n} from [[{id}]].",
         "Coordinate the {n} with [[{id}]].")
_MDLINK = ("Background: [{t}]({p}).", "[See]({p}) for the {n} details.", "The {n} follows [{t}]({p}).",
           "Details of the {n} are in [{t}]({p}).")


def n_mentions(rng):
    x = rng.random()
    return 0 if x < 0.3 else 1 if x < 0.75 else 2 if x < 0.93 else 3


def item_body(d, rng, items, adrs):
    text = Text(rng)
    text.topic = d.topic
    f = LENGTH[d.key] * (0.6 + 0.8 * rng.random())
    k_ctx = max(1, round(4 * f))
    ctx = text.sentences(C_CONTEXT, k_ctx)
    goal = text.sentences(C_GOAL, max(1, round(1.5 * f)))
    appr = text.sentences(C_APPROACH, max(1, round(3 * f)))
    ac = text.sentences(C_AC, max(2, round(3 * f)))

    # References in the body. Extra sentences go into Context or as Approach bullets.
    extra = []
    for _ in range(n_mentions(rng)):
        t = ref_target(rng, d, items)
        if t is d:
            continue
        extra.append(rng.choice(_MENTION).format(id=t.id, n=text.noun()))
    if rng.random() < 0.3:
        t = ref_target(rng, d, items)
        if t is not d:
            extra.append(rng.choice(_WIKI).format(id=t.id, n=text.noun()))
    if rng.random() < 0.2:
        if adrs and (rng.random() < 0.4 or d.decisions):
            if d.decisions and rng.random() < 0.7:
                aid = d.decisions[int(rng.random() * len(d.decisions))]
                t = ADR_BY_ID[aid]
            else:
                t = adrs[int(rng.random() * len(adrs))]
        else:
            t = ref_target(rng, d, items)
        if t is not d:
            extra.append(rng.choice(_MDLINK).format(t=t.id, p=relpath(t.rel, d.dir), n=text.noun()))
    bullets_extra = []
    for s in extra:
        if rng.random() < 0.6:
            ctx.append(s)
        else:
            bullets_extra.append("- " + s)

    # Context: one or two paragraphs.
    if len(ctx) > 3:
        cut = 2 + int(rng.random() * (len(ctx) - 2))
        ctx_text = " ".join(ctx[:cut]) + "\n\n" + " ".join(ctx[cut:])
    else:
        ctx_text = " ".join(ctx)
    done = d.state == "Done"
    ac_lines = []
    for s in ac:
        checked = done or (d.state in ("Review", "InProgress") and rng.random() < 0.5)
        ac_lines.append(f"- [{'x' if checked else ' '}] {s}")

    # Worklog: 1-6 dated entries between created and updated.
    n_log = 1 + int(rng.random() * 6)
    span = max(0, (d.updated - d.created).days)
    days = sorted(int(rng.random() * (span + 1)) for _ in range(n_log - 1))
    entries = [(d.created, f"Created {d.type.lower() if d.key != 'userstory' else 'user story'}.")]
    for dd in days:
        entries.append((d.created + timedelta(days=dd), text.fill(C_WORK[int(rng.random() * len(C_WORK))])))
    if d.state not in ("Proposed",) and n_log > 1:
        entries[-1] = (d.updated, f"Moved to {d.state}.")
    log = []
    last = None
    for day, msg in entries:
        tm = fmt_time(rng)
        stamp = f"{day.isoformat()} {tm}"
        if last is not None and stamp <= last:
            stamp = last  # keep the log non-decreasing
        last = stamp
        log.append(f"{stamp} [agent={AGENTS[int(rng.random() * len(AGENTS))]}] {msg}")

    return (
        "\n# Context\n\n" + ctx_text + "\n\n"
        "# Goal\n\n" + " ".join(goal) + "\n\n"
        "# Approach\n\n" + "\n".join(appr + bullets_extra) + "\n\n"
        "# Acceptance Criteria\n\n" + "\n".join(ac_lines) + "\n\n"
        "# Worklog\n\n" + "\n".join(log) + "\n"
    )


ADR_BY_ID = {}
ITEM_BY_ID = {}


def adr_text(a, rng, items, adrs):
    text = Text(rng)
    text.topic = a.topic
    fm = (
        "---\n"
        f"id: {a.id}\n"
        f"uid: {a.uid}\n"
        f"title: {yquote(a.title)}\n"
        f"status: {a.status}\n"
        f"date: {a.created.isoformat()}\n"
        f"related_items: {ylist(a.related)}\n"
        f"supersedes: {ylist(a.supersedes)}\n"
        f"superseded_by: {ylist(a.superseded_by)}\n"
        "---\n"
    )
    dec = text.sentences(C_DECISION, 2 + int(rng.random() * 3))
    dec_bullets = text.sentences(C_APPROACH, 2 + int(rng.random() * 3))
    if a.supersedes:
        old = ADR_BY_ID[a.supersedes[0]]
        dec.append(f"This replaces [{old.id}]({relpath(old.rel, a.dir)}), whose {text.noun()} did not hold up.")
    if a.superseded_by:
        new = ADR_BY_ID[a.superseded_by[0]]
        dec.insert(0, f"Superseded by [{new.id}]({relpath(new.rel, a.dir)}).")
    ctx = text.sentences(C_CONTEXT, 4 + int(rng.random() * 4))
    # Mention related items: bare ids, one Markdown link.
    rel_items = [ITEM_BY_ID[i] for i in a.related]
    for it in rel_items[:3]:
        ctx.insert(int(rng.random() * (len(ctx) + 1)), rng.choice(_MENTION).format(id=it.id, n=text.noun()))
    if rel_items:
        it = rel_items[int(rng.random() * len(rel_items))]
        ctx.append(f"The original report is [{it.id}]({relpath(it.rel, a.dir)}).")
    if rng.random() < 0.3 and items:
        it = items[int(rng.random() * len(items))]
        ctx.append(f"See also [[{it.id}]].")
    cut = max(1, len(ctx) // 2)
    options = []
    n_opt = 2 + int(rng.random() * 3)
    chosen = int(rng.random() * n_opt)
    for i in range(n_opt):
        head = cap(f"{ADJ_Z.pick(rng)} {text.noun()}")
        body = " ".join(text.sentences(C_CONTEXT, 1 + int(rng.random() * 2)))
        verdict = "Chosen." if i == chosen else "Rejected."
        options.append(f"{i + 1}. **{head}.** {body} {verdict}")
    cons = text.sentences(C_CONSEQUENCE, 3 + int(rng.random() * 3))
    body = (
        "\n# Decision\n\n" + " ".join(dec) + "\n\n" + "\n".join(dec_bullets) + "\n\n"
        "# Context\n\n" + " ".join(ctx[:cut]) + "\n\n" + " ".join(ctx[cut:]) + "\n\n"
        "# Options Considered\n\n" + "\n".join(options) + "\n\n"
        "# Consequences\n\n" + "\n".join(cons) + "\n"
    )
    return fm + body


# --------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------


def die(msg, code=2):
    print(f"gen_backlog: error: {msg}", file=sys.stderr)
    sys.exit(code)


def prepare_out(out, force):
    if os.path.lexists(out) and not os.path.isdir(out):
        die(f"{out} exists and is not a folder")
    if os.path.isdir(out) and os.listdir(out):
        if not force:
            die(f"{out} exists and is not empty; use --force to replace it")
        real = os.path.realpath(out)
        cwd = os.path.realpath(os.getcwd())
        home = os.path.realpath(os.path.expanduser("~"))
        if real in ("/", home) or cwd == real or cwd.startswith(real.rstrip("/") + "/"):
            die(f"refusing to delete {real} (it is /, your home, or contains the working directory)")
        shutil.rmtree(out)
    os.makedirs(out, exist_ok=True)


def write(path, text):
    with open(path, "wb") as f:
        f.write(text.encode("utf-8"))


def generate(out, n_items, n_adrs, seed):
    items, adrs = build_structure(n_items, n_adrs, seed)
    ADR_BY_ID.clear()
    ADR_BY_ID.update((a.id, a) for a in adrs)
    ITEM_BY_ID.clear()
    ITEM_BY_ID.update((d.id, d) for d in items)
    made = set()
    total = 0
    brng = Random(f"mdgraph-gen:{seed}:bodies")
    for d in items:
        # One stream per document derived from the shared one: documents do not shift each
        # other's text when templates change length.
        rng = Random(brng.getrandbits(64))
        text = item_frontmatter(d) + item_body(d, rng, items, adrs)
        if d.dir not in made:
            os.makedirs(os.path.join(out, d.dir), exist_ok=True)
            made.add(d.dir)
        write(os.path.join(out, d.rel), text)
        total += len(text.encode("utf-8"))
    if adrs:
        os.makedirs(os.path.join(out, "decisions"), exist_ok=True)
    for a in adrs:
        rng = Random(brng.getrandbits(64))
        text = adr_text(a, rng, items, adrs)
        write(os.path.join(out, a.rel), text)
        total += len(text.encode("utf-8"))
    return len(items), len(adrs), total


_UPDATED = re.compile(r"^updated: (\d{4}-\d{2}-\d{2})$", re.M)


def edit(out, percent, seed):
    root = os.path.join(out, "items")
    if not os.path.isdir(root):
        die(f"{root} not found; generate a backlog first")
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith(".md"):
                files.append(os.path.relpath(os.path.join(dirpath, fn), out).replace(os.sep, "/"))
    files.sort()
    if not files:
        die(f"no item files under {root}")
    k = min(len(files), max(1, round(len(files) * percent / 100.0))) if percent > 0 else 0
    rng = Random(f"mdgraph-gen:{seed}:edit")
    chosen = sorted(rng.sample(files, k))
    edited = 0
    for rel in chosen:
        p = os.path.join(out, rel)
        with open(p, "rb") as f:
            text = f.read().decode("utf-8")
        m = _UPDATED.search(text)
        if m:
            old = date.fromisoformat(m.group(1))
            new = old + timedelta(days=1 + int(rng.random() * 14))
            text = text[: m.start(1)] + new.isoformat() + text[m.end(1):]
        else:
            new = END
        if not text.endswith("\n"):
            text += "\n"
        text += (f"{new.isoformat()} {fmt_time(rng)} [agent={AGENTS[int(rng.random() * len(AGENTS))]}] "
                 f"Touched by the incremental benchmark (seed {seed}).\n")
        write(p, text)
        edited += 1
    return edited, len(files)


def bench_board(folder: str, items: int) -> str:
    """The benches' corpus: a generated backlog of `items` items in `folder`/backlog
    (generated when missing) with an mdgraph.toml beside it (root `backlog`, index
    `_index`). Returns the backlog's path."""
    root = os.path.join(folder, "backlog")
    if not os.path.isdir(root):
        import subprocess
        subprocess.run([sys.executable, os.path.abspath(__file__), "--items", str(items), root],
                       check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(folder, "mdgraph.toml"), "w") as f:
        f.write('root = "backlog"\nindex_dir = "_index"\n')
    return root


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", help="output folder (created; must be empty unless --force)")
    ap.add_argument("--items", type=int, help="number of work items to generate")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--adrs", type=int, help="number of ADRs (default max(8, items // 100))")
    ap.add_argument("--force", action="store_true", help="remove and recreate OUT_DIR if it is not empty")
    ap.add_argument("--edit-percent", type=float, metavar="P",
                    help="instead of generating, edit P%% of the existing item files in place")
    a = ap.parse_args(argv)

    if a.edit_percent is not None:
        if a.items is not None or a.force:
            die("--edit-percent cannot be combined with --items or --force")
        if not (0 <= a.edit_percent <= 100):
            die("--edit-percent must be between 0 and 100")
        t0 = time.perf_counter()
        edited, total = edit(a.out_dir, a.edit_percent, a.seed)
        print(f"edited {edited} of {total} item files in {time.perf_counter() - t0:.2f} s")
        return 0

    if a.items is None:
        die("--items N is required (or --edit-percent P)")
    if a.items < 1:
        die("--items must be at least 1")
    n_adrs = a.adrs if a.adrs is not None else max(8, a.items // 100)
    if n_adrs < 0:
        die("--adrs must not be negative")
    prepare_out(a.out_dir, a.force)
    t0 = time.perf_counter()
    n, m, total = generate(a.out_dir, a.items, n_adrs, a.seed)
    dt = time.perf_counter() - t0
    print(f"generated {n} items and {m} ADRs ({total / 1e6:.1f} MB, {total / max(1, n + m):.0f} B/file avg) "
          f"in {a.out_dir} in {dt:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
