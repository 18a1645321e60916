#!/usr/bin/env python3
"""Simulates a thumbcache cluster behind nginx `hash $thumb_source consistent` (issue 13, step 4).

Placement is nginx's ketama exactly as ngx_http_upstream_hash_module.c builds it (checked against Debian's 1.22.1):
every server string of the upstream, as written in the config, is split into HOST and PORT at its last ':'
(when only digits follow it); it gets weight x 160 points, point j = crc32(HOST "\\0" PORT prev), where prev
is the previous point's hash as 4 little-endian bytes (0 for the first point). Points are sorted and equal
hashes dropped. A key goes to the first point >= crc32(key), wrapping to the first point; when that
server is down nginx walks on to the next point (hash++), skipping servers already tried.

Each node is a DiskLru bounded by bytes: one entry per source holding its metadata, original and every
thumbnail made so far; a use moves the entry to the newest end; after a write the oldest entries are
evicted until the total fits the budget (DiskLruCache.trimToSize). Serve's memory cache of thumbnails can be put
in front (--memory-cache): a memory hit does not touch the disk, so it does not make the entry the newest there.
scripts/cluster-evict-check.sh checks this node model against three real nodes whose disks evict.

Commands:
  simulate   (default) Zipf (s = 1) workload; hit ratio, origin bytes and load per node for 1, 3, 10 nodes
  place      reads keys (one per line) on stdin, prints "key<TAB>node" as nginx would place them
  check      compares observed placements with the prediction; exit 1 on any mismatch. Reads "source<TAB>node"
             lines (node as listed in nginx's upstream, or a name given with --nodes NAME=HOST:PORT) or
             the access log of deploy/nginx-conf.sh (ACCESS_LOG=...), which logs the key and the node
  replay     replays a real run's request log through the model and compares node and hit/miss per request,
             the origin bytes, and (--dump-state) each node's entries at the end

Standard library only. Deterministic for a given --seed.
"""
import argparse
import bisect
import collections
import itertools
import math
import os
import random
import sys
import zlib

# ----------------------------------------------------------------------------------------------------------
# nginx ketama placement


def split_server(server):
    """HOST and PORT as nginx splits a server string: at the last ':' when only ASCII digits follow it."""
    data = server.encode()
    if data[:5].lower() == b"unix:":
        return data[5:], b""
    i = len(data)
    while i > 0 and 0x30 <= data[i - 1] <= 0x39:
        i -= 1
    if i > 0 and data[i - 1] == 0x3A:
        return data[: i - 1], data[i:]
    return data, b""


class Ring:
    """The points of one `hash ... consistent` upstream, in nginx's order."""

    def __init__(self, servers, weights=None):
        if not servers:
            raise ValueError("a ring needs at least one server")
        self.servers = list(servers)
        weights = weights or [1] * len(self.servers)
        points = []
        for index, server in enumerate(self.servers):
            host, port = split_server(server)
            base = zlib.crc32(port, zlib.crc32(b"\0", zlib.crc32(host)))
            prev = 0
            for _ in range(weights[index] * 160):
                prev = zlib.crc32(prev.to_bytes(4, "little"), base)
                points.append((prev, index))
        # nginx sorts with qsort (not stable) and keeps the first of equal hashes; a tie between two servers
        # (about 1 in 10^5 for 3 nodes) would be decided by qsort's order, which this cannot reproduce.
        points.sort(key=lambda p: p[0])
        hashes, owners = [], []
        for h, owner in points:
            if not hashes or hashes[-1] != h:
                hashes.append(h)
                owners.append(owner)
        self.hashes = hashes
        self.owners = owners

    def shares(self):
        """Each server's fraction of the 32-bit hash space (the keys it owns, on average)."""
        share = [0] * len(self.servers)
        previous = self.hashes[-1] - 2**32
        for h, owner in zip(self.hashes, self.owners):
            share[owner] += h - previous  # a point owns the keys from the previous point (exclusive) up to it
            previous = h
        return [x / 2**32 for x in share]

    def node_index(self, key, down=()):
        """Index of the server that serves `key`; servers in `down` (indices) are skipped as nginx skips
        failed peers. None when all are down."""
        if isinstance(key, str):
            key = key.encode()
        n = len(self.hashes)
        start = bisect.bisect_left(self.hashes, zlib.crc32(key))
        for step in range(n):
            owner = self.owners[(start + step) % n]
            if owner not in down:
                return owner
        return None

    def node(self, key, down=()):
        index = self.node_index(key, down)
        return None if index is None else self.servers[index]


# ----------------------------------------------------------------------------------------------------------
# A node: serve's memory cache in front of its DiskLru


class DiskLruModel:
    """One node's disk as DiskLruCache keeps it: entries by source, LRU order, bounded by the sum of their value
    lengths (the journal is not counted). A lookup that finds the entry (a snapshot) makes it the newest; after
    each commit (a new entry, or a thumbnail added to one) the oldest entries are evicted until the total fits
    (trimToSize). DiskLru runs that trim on its cleanup queue right after the commit; with late_trim the model
    runs it after the node's next lookup instead, as happens when the queue is slower than the next request."""

    def __init__(self, budget, late_trim=False):
        self.budget = budget
        self.entries = collections.OrderedDict()  # source -> [bytes, set of variants stored]
        self.size = 0
        self.evictions = 0
        self.late_trim = late_trim
        self.trim_pending = False

    def lookup(self, source):
        entry = self.entries.get(source)
        if entry is not None:
            self.entries.move_to_end(source)
        if self.trim_pending:
            self.trim_pending = False
            self.trim()
        return self.entries.get(source)

    def insert(self, source, nbytes, variants):
        self.entries[source] = [nbytes, set(variants)]
        self.size += nbytes
        self.committed()

    def grow(self, source, entry, nbytes, variant):
        entry[0] += nbytes
        entry[1].add(variant)
        self.size += nbytes
        self.committed()

    def committed(self):
        if self.late_trim:
            self.trim_pending = True
        else:
            self.trim()

    def trim(self):
        while self.size > self.budget and self.entries:
            _, (nbytes, _) = self.entries.popitem(last=False)
            self.size -= nbytes
            self.evictions += 1


class MemoryCacheModel:
    """serve's MemoryCache of encoded thumbnails: an LRU bounded by total bytes and by count (1000, serve's
    default); a thumbnail over a tenth of the byte bound is not kept."""

    def __init__(self, total, count=1000):
        self.total, self.count, self.entry_cap = total, count, max(1, total // 10)
        self.entries = collections.OrderedDict()  # (source, variant) -> bytes
        self.size = 0

    def get(self, key):
        if key in self.entries:
            self.entries.move_to_end(key)
            return True
        return False

    def set(self, key, nbytes):
        self.size -= self.entries.pop(key, 0)
        if nbytes > self.entry_cap:
            return
        self.entries[key] = nbytes
        self.size += nbytes
        while self.size > self.total or len(self.entries) > self.count:
            self.size -= self.entries.popitem(last=False)[1]


# The metadata JSON (value 0): the source URL, the origin's response headers, times and the original's
# description, plus a part per stored thumbnail. scripts/cluster-evict-check.sh measured 365 bytes + 54 per
# thumbnail for a 34-character URL and python http.server's 6 headers; 600 allows for longer URLs and more
# headers (ETag, Vary, CDN headers).
METADATA_BYTES = 600
METADATA_PER_THUMBNAIL = 54

# serve's ladder (SizeLadder.standard): only these sizes, fit contain, are stored in the DiskLru entry;
# other sizes and cover crops live in the memory cache only.
LADDER = (64, 128, 256, 512, 1024)


class NodeModel:
    """One `thumbcache serve` node as ThumbnailPipeline answers a request: the memory cache (no disk access, so
    the DiskLru order is not touched), else the DiskLru entry (a hit: made the newest, the thumbnail added if
    not stored), else the origin (a new entry: metadata, original and the thumbnail). What was served then goes
    into the memory cache. A variant names one thumbnail (size, fit, format); on_disk says whether it is stored."""

    def __init__(self, budget, memory=0, memory_count=1000, on_disk=lambda variant: True, late_trim=False,
                 metadata=(None, None)):
        self.disk = DiskLruModel(budget, late_trim)
        self.metadata_bytes = METADATA_BYTES if metadata[0] is None else metadata[0]
        self.metadata_per_thumbnail = METADATA_PER_THUMBNAIL if metadata[1] is None else metadata[1]
        self.memory = MemoryCacheModel(memory, memory_count) if memory else None
        self.on_disk = on_disk

    def request(self, source, variant, original_bytes, thumbnail_bytes):
        """("memory" | "disk" | "network", whether a thumbnail was rendered)."""
        if self.memory is not None and self.memory.get((source, variant)):
            return "memory", False
        stored = self.on_disk(variant)
        entry = self.disk.lookup(source)
        if entry is None:
            variants = [variant] if stored else []
            nbytes = self.metadata_bytes + self.metadata_per_thumbnail * len(variants) + original_bytes
            self.disk.insert(source, nbytes + (thumbnail_bytes if stored else 0), variants)
            served, rendered = "network", True
        else:
            rendered = variant not in entry[1]
            if stored and rendered:
                self.disk.grow(source, entry, self.metadata_per_thumbnail + thumbnail_bytes, variant)
            served = "disk"
        if self.memory is not None:
            self.memory.set((source, variant), thumbnail_bytes)
        return served, rendered


# ----------------------------------------------------------------------------------------------------------
# Workload


def corpus_photo_sizes(manifest):
    """Byte sizes of the corpus JPEG photos (>= 1 MP, decodable), or [] without the corpus."""
    sizes = []
    try:
        with open(manifest, encoding="utf-8") as handle:
            header = handle.readline().rstrip("\n").split("\t")
            col = {name: i for i, name in enumerate(header)}
            for line in handle:
                f = line.rstrip("\n").split("\t")
                if len(f) < len(header) or f[col["expected_outcome"]] != "decodes":
                    continue
                if not f[col["file"]].lower().endswith((".jpg", ".jpeg")):
                    continue
                if int(f[col["width"]]) * int(f[col["height"]]) >= 1_000_000:
                    sizes.append(int(f[col["bytes"]]))
    except (OSError, KeyError, ValueError):
        return []
    return sizes


def lognormal(rng, median, sigma):
    return median * math.exp(rng.gauss(0.0, sigma))


class Catalog:
    """Per source: original bytes and thumbnail bytes at each size. Source 0 is the most popular."""

    def __init__(self, count, rng, photo_sizes, thumb_medians, thumb_sigma, original_median, original_sigma):
        if photo_sizes:
            # a corpus photo's size with a +-25% (1 sigma) jitter, so sources are not 30 distinct sizes
            self.originals = [int(rng.choice(photo_sizes) * math.exp(rng.gauss(0.0, 0.25))) for _ in range(count)]
        else:
            self.originals = [int(min(lognormal(rng, original_median, original_sigma), 40e6)) for _ in range(count)]
        self.thumbs = [[max(1000, int(lognormal(rng, m, thumb_sigma))) for m in thumb_medians] for _ in range(count)]
        # popularity rank is independent of size: shuffle which source is rank r
        self.order = list(range(count))
        rng.shuffle(self.order)


def zipf_cumulative(count, s):
    total, cumulative = 0.0, []
    for rank in range(1, count + 1):
        total += rank ** -s
        cumulative.append(total)
    return cumulative


def source_key(index):
    # the base64url source segment of a URL https://origin.example/photos/<index>.jpg: the bytes hashed by nginx
    import base64
    url = f"https://origin.example/photos/{index}.jpg".encode()
    return base64.urlsafe_b64encode(url).rstrip(b"=").decode()


def simulate(args, catalog, requests, nodes, balancing):
    budget, memory, memory_count = args.budget, args.memory_cache, 1000
    if balancing == "pooled":  # the ideal: one node with all the disk and memory (no partitioning at all)
        budget, memory, memory_count, nodes, balancing = budget * nodes, memory * nodes, memory_count * nodes, 1, "hash"
    servers = [f"thumbcache-{i + 1}:8080" for i in range(nodes)]  # ring names only; nothing is contacted
    ring = Ring(servers)
    keys = {}
    models = [NodeModel(budget, memory, memory_count) for _ in range(nodes)]
    per_node_requests = [0] * nodes
    per_node_renders = [0] * nodes
    rng = random.Random(args.seed + 1)
    counted = hits = memory_hits = renders = origin_bytes = thumbnail_bytes_served = 0
    warmup = int(len(requests) * args.warmup)
    for n, (source, variant) in enumerate(requests):
        if balancing == "hash":
            index = keys.get(source)
            if index is None:
                index = keys[source] = ring.node_index(source_key(source))
        else:  # round-robin / random: every node sees every source
            index = rng.randrange(nodes)
        thumb = catalog.thumbs[source][variant]
        served, rendered = models[index].request(source, variant, catalog.originals[source], thumb)
        if n < warmup:
            continue
        counted += 1
        per_node_requests[index] += 1
        thumbnail_bytes_served += thumb
        hits += served != "network"
        memory_hits += served == "memory"
        renders += rendered
        per_node_renders[index] += rendered
        if served == "network":
            origin_bytes += catalog.originals[source]
    return {
        "key_space": ring.shares(),
        "requests": counted,
        "hit_ratio": hits / counted,
        "memory_ratio": memory_hits / counted,
        "origin_bytes": origin_bytes,
        "renders": renders,
        "served_bytes": thumbnail_bytes_served,
        "stored_bytes": sum(m.disk.size for m in models),
        "entries": sum(len(m.disk.entries) for m in models),
        "load": per_node_requests,
        "render_load": per_node_renders,
    }


def human(nbytes):
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(nbytes) < 1000 or unit == "TB":
            return f"{nbytes:.1f} {unit}" if unit != "B" else f"{nbytes} B"
        nbytes /= 1000


def parse_size(text):
    units = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
             "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
    text = text.strip().lower()
    number = text.rstrip("abcdefghijklmnopqrstuvwxyz ")
    unit = text[len(number):].strip()
    if unit not in units:
        raise argparse.ArgumentTypeError(f"unknown size unit in {text!r} (use B, KB, MB, GB, KiB, MiB, GiB)")
    return int(float(number) * units[unit])


def run_simulate(args):
    rng = random.Random(args.seed)
    photo_sizes = [] if args.no_corpus else corpus_photo_sizes(args.manifest)
    catalog = Catalog(args.sources, rng, photo_sizes, args.thumb_medians, 0.3, args.original_median, 0.8)
    cumulative = zipf_cumulative(args.sources, args.zipf)
    ranks = rng.choices(range(args.sources), cum_weights=cumulative, k=args.requests)
    variants = rng.choices(range(len(args.thumb_medians)), weights=args.size_mix, k=args.requests)
    requests = [(catalog.order[r], v) for r, v in zip(ranks, variants)]
    catalog_bytes = (sum(catalog.originals) + sum(map(sum, catalog.thumbs))
                     + (METADATA_BYTES + 2 * METADATA_PER_THUMBNAIL) * args.sources)
    distinct = len({s for s, _ in requests})

    print(f"workload: {args.requests:,} requests, Zipf s={args.zipf} over {args.sources:,} sources "
          f"({distinct:,} requested at least once), seed {args.seed}; first {args.warmup:.0%} not counted")
    origin_note = (f"{len(photo_sizes)} corpus JPEG photo sizes (+-25% jitter)" if photo_sizes
                   else f"log-normal, median {human(args.original_median)}, sigma 0.8 (no corpus)")
    print(f"originals: {origin_note}, mean {human(sum(catalog.originals) / args.sources)}; "
          f"thumbnails: 2 sizes, medians {' and '.join(human(m) for m in args.thumb_medians)}, "
          f"requested {args.size_mix[0]}:{args.size_mix[1]}")
    print(f"all sources with both thumbnails: {human(catalog_bytes)}; disk budget per node: {human(args.budget)}; "
          f"memory cache per node: " + (f"{human(args.memory_cache)} (at most 1,000 thumbnails)" if args.memory_cache else "not modelled"))
    print()
    warm = int(args.requests * args.warmup)
    seen = {s for s, _ in requests[:warm]}
    first_uses = 0
    for s, _ in requests[warm:]:
        if s not in seen:
            seen.add(s)
            first_uses += 1
    print(f"ceiling (a disk that never evicts): hit ratio {1 - first_uses / (args.requests - warm):.1%}")
    print()
    print("| nodes | balancing | disk in total | hit ratio | origin bytes | origin bytes per request | renders "
          "| busiest node: key space / mean | requests / mean | renders / mean |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for nodes in args.nodes:
        for balancing in (["hash"] + (["random", "pooled"] if args.baselines and nodes > 1 else [])):
            r = simulate(args, catalog, requests, nodes, balancing)
            rows.append(r)
            busiest_keys = max(r["key_space"]) * len(r["key_space"])
            busiest = max(r["load"]) / (r["requests"] / len(r["load"]))
            busiest_renders = max(r["render_load"]) / (r["renders"] / len(r["render_load"]))
            label = {"hash": "ketama", "random": "random (no hash)", "pooled": "one disk of the same total"}[balancing]
            print(f"| {nodes} | {label} | {human(args.budget * nodes)} "
                  f"| {r['hit_ratio']:.1%}" + (f" ({r['memory_ratio']:.1%} from memory)" if args.memory_cache else "") + f" | {human(r['origin_bytes'])} | {human(r['origin_bytes'] / r['requests'])} "
                  f"| {r['renders']:,} | " + ("— | — | — |" if balancing == "pooled" else
                                             f"{busiest_keys if balancing == 'hash' else 1:.2f} | {busiest:.2f} | {busiest_renders:.2f} |"))
            sys.stdout.flush()
    return rows


# ----------------------------------------------------------------------------------------------------------
# place / check / replay


def node_names(specs):
    """--nodes entries: HOST:PORT, or NAME=HOST:PORT to accept observations that name the node NAME."""
    servers, alias = [], {}
    for spec in specs:
        name, _, server = spec.rpartition("=")
        servers.append(server)
        alias[server] = server
        if name:
            alias[name] = server
    return servers, alias


def down_indices(servers, alias, names):
    unknown = [d for d in names if d not in alias]
    if unknown:
        sys.exit(f"--down {unknown[0]}: not one of the --nodes")
    return {servers.index(alias[d]) for d in names}


def run_place(args):
    servers, alias = node_names(args.nodes)
    ring = Ring(servers)
    down = down_indices(servers, alias, args.down)
    for line in sys.stdin:
        key = line.strip()
        if key:
            print(f"{key}\t{ring.node(key, down)}")


def run_check(args):
    servers, alias = node_names(args.nodes)
    ring = Ring(servers)
    down = down_indices(servers, alias, args.down)
    total = matched = 0
    mismatches = []
    with (sys.stdin if args.observations == "-" else open(args.observations, encoding="utf-8")) as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 12:  # a line of deploy/nginx-conf.sh's access log
                uri, key, tried = fields[3], fields[4], fields[5]
                if key == uri or tried == "-":
                    continue  # not a thumbnail or purge path, or answered without a node
                fields = [key, tried.split(", ")[-1]]  # the node that answered, after any failover
            if len(fields) < 2 or not fields[0] or fields[0].startswith("#"):
                continue
            source, observed = fields[0], alias.get(fields[1], fields[1])
            predicted = ring.node(source, down)
            total += 1
            if predicted == observed:
                matched += 1
            else:
                mismatches.append((source, observed, predicted))
    for source, observed, predicted in mismatches[:10]:
        print(f"mismatch: {source} observed {observed}, predicted {predicted}")
    print(f"placement: {matched}/{total} observations match nginx's ketama as modelled "
          f"({(matched / total if total else 0):.1%})" + (f", down: {', '.join(args.down)}" if args.down else ""))
    return 0 if total and matched == total else 1


def path_variant(uri):
    """"<size>/<fit>[/<format>]" of /<signature>/<size>/<fit>/<source>[.<format>]."""
    parts = uri.split("/")
    last = parts[-1]
    return "/".join(parts[2:4] + ([last.rsplit(".", 1)[1]] if "." in last else []))


def trace_rows(handle, original_size):
    """The requests of a real run, in order, as dicts with source, node, served, original_bytes,
    thumbnail_bytes and variant. Reads either a TSV with a header naming those columns, or the access log
    of deploy/nginx-conf.sh (ACCESS_LOG=...), whose original sizes come from original_size(source URL)."""
    import base64
    first = handle.readline().rstrip("\n").split("\t")
    if len(first) >= 12 and first[0].replace(".", "").isdigit():  # an access log line, not a header
        sizes = {}
        for f in itertools.chain([first], (line.rstrip("\n").split("\t") for line in handle)):
            if len(f) < 12:
                continue
            status, method, uri, key, tried, served, sent = f[1], f[2], f[3], f[4], f[5], f[7], f[8]
            if key == uri or tried == "-" or method not in ("GET", "HEAD") or status not in ("200", "304"):
                continue  # not a thumbnail, an error, or answered without a node
            if key not in sizes:
                sizes[key] = original_size(base64.urlsafe_b64decode(key + "=" * (-len(key) % 4)).decode("utf-8", "replace"))
            yield {"source": key, "node": tried, "served": served, "original_bytes": sizes[key],
                   "thumbnail_bytes": int(sent), "variant": path_variant(uri)}
        return
    col = {name: i for i, name in enumerate(first)}
    missing = {"source", "node", "served", "original_bytes", "thumbnail_bytes", "variant"} - set(col)
    if missing:
        sys.exit(f"replay: the trace header lacks {', '.join(sorted(missing))}")
    for line in handle:
        f = line.rstrip("\n").split("\t")
        if len(f) >= len(first):
            row = {name: f[i] for name, i in col.items()}
            row["original_bytes"], row["thumbnail_bytes"] = int(row["original_bytes"]), int(row["thumbnail_bytes"])
            yield row


def original_sizes(args):
    """A function from a source URL to its original's bytes: from --original-sizes (lines "URL<TAB>bytes") or
    the file at the URL's path under --origin-root."""
    import urllib.parse
    if args.original_sizes:
        with open(args.original_sizes, encoding="utf-8") as handle:
            table = {url: int(n) for url, n in (line.rstrip("\n").split("\t")[:2] for line in handle if "\t" in line)}

        def from_table(url):
            if url not in table:
                sys.exit(f"replay: {url} is not in {args.original_sizes}")
            return table[url]
        return from_table
    if not args.origin_root:
        sys.exit("replay: an nginx access log needs --original-sizes or --origin-root (for the originals' sizes)")

    def from_files(url):
        path = os.path.join(args.origin_root, urllib.parse.unquote(urllib.parse.urlsplit(url).path).lstrip("/"))
        try:
            return os.path.getsize(path)
        except OSError:
            sys.exit(f"replay: no file {path} for the source {url}")
    return from_files


def on_ladder(ladder):
    """Whether a "<size>/<fit>[/<format>]" variant is stored in the DiskLru entry (a ladder size, fit contain)."""
    def stored(variant):
        size, fit = (variant.split("/") + [""])[:2]
        return fit == "contain" and size.isdigit() and int(size) in ladder
    return stored


def run_replay(args):
    """Replays a real run through the model and compares, request by request, the node and what the node did.
    served is the node's X-Thumbcache value: network counts as a miss (the origin was asked), anything else
    (memory, disk, revalidated, stale) as a hit. With --memory-cache the model has serve's memory cache and
    memory/disk/network are compared too."""
    servers, alias = node_names(args.nodes)
    ring = Ring(servers)
    models = {server: NodeModel(args.budget, args.memory_cache, on_disk=on_ladder(args.ladder), late_trim=args.late_trim,
                                metadata=args.metadata_bytes) for server in servers}
    handle = sys.stdin if args.trace == "-" else open(args.trace, encoding="utf-8")
    total = node_agree = outcome_agree = served_agree = real_hits = model_hits = real_origin = model_origin = 0
    disagreements = []
    for row in trace_rows(handle, original_sizes(args)):
        node = row["node"].split(", ")[-1]  # nginx's $upstream_addr lists every node tried
        source, observed = row["source"], alias.get(node, node)
        predicted = ring.node(source)
        served, _ = models[predicted].request(source, row["variant"], row["original_bytes"], row["thumbnail_bytes"])
        real_hit, model_hit = row["served"] != "network", served != "network"
        total += 1
        node_agree += predicted == observed
        outcome_agree += model_hit == real_hit
        served_agree += served == row["served"]
        real_hits += real_hit
        model_hits += model_hit
        real_origin += 0 if real_hit else row["original_bytes"]
        model_origin += 0 if model_hit else row["original_bytes"]
        if predicted != observed or model_hit != real_hit or (args.memory_cache and served != row["served"]):
            disagreements.append(f"request {total}: {source[:24]}… {row['variant']} on {observed} "
                                 f"(model {predicted}): real {row['served']}, model {served}")
    if not total:
        sys.exit("replay: no requests in the trace")
    print(f"replay of {total} requests, budget {human(args.budget)} per node, memory cache "
          + (f"{human(args.memory_cache)} per node:" if args.memory_cache else "not modelled:"))
    print(f"  node:     {node_agree}/{total} requests on the predicted node ({node_agree / total:.1%})")
    print(f"  hit/miss: {outcome_agree}/{total} agree ({outcome_agree / total:.1%}); "
          f"hit ratio real {real_hits / total:.1%}, model {model_hits / total:.1%}")
    if args.memory_cache:
        print(f"  served from memory/disk/network: {served_agree}/{total} agree, {served_agree / total:.1%}")
    print(f"  origin bytes: real {real_origin:,}, model {model_origin:,}; model evictions per node: "
          + ", ".join(str(models[s].disk.evictions) for s in servers))
    for line in disagreements[:args.show]:
        print("  " + line)
    if len(disagreements) > args.show:
        print(f"  … {len(disagreements) - args.show} more disagreements")
    for model in models.values():
        model.disk.lookup(None)  # a trim still pending runs when the node closes its cache
    if args.dump_state:
        with open(args.dump_state, "w", encoding="utf-8") as out:
            for server in servers:  # least recently used first, as `disklru list` prints a cache
                for source, (nbytes, _) in models[server].disk.entries.items():
                    out.write(f"{server}\t{source}\t{nbytes}\n")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")

    sim = sub.add_parser("simulate", help="hit ratio and origin bytes for 1, 3 and 10 nodes")
    here = os.path.dirname(os.path.abspath(__file__))
    sim.add_argument("--sources", type=int, default=100_000)
    sim.add_argument("--requests", type=int, default=1_500_000)
    sim.add_argument("--warmup", type=float, default=0.2, help="fraction of requests not counted (default 0.2)")
    sim.add_argument("--zipf", type=float, default=1.0)
    sim.add_argument("--nodes", type=lambda t: [int(x) for x in t.split(",")], default=[1, 3, 10])
    sim.add_argument("--budget", type=parse_size, default=parse_size("8GB"), help="disk per node (default 8GB)")
    sim.add_argument("--memory-cache", type=parse_size, default=0,
                     help="serve's memory cache per node (its default is 64MiB without a cgroup limit); 0, the "
                          "default, leaves it out: every request reaches the disk")
    sim.add_argument("--thumb-medians", type=lambda t: [parse_size(x) for x in t.split(",")],
                     default=[12_000, 28_000], help="median bytes of the 2 thumbnail sizes (default 12KB,28KB)")
    sim.add_argument("--size-mix", type=lambda t: [float(x) for x in t.split(",")], default=[0.7, 0.3],
                     help="share of requests per thumbnail size (default 0.7,0.3)")
    sim.add_argument("--original-median", type=parse_size, default=500_000,
                     help="median original size without the corpus (default 500KB)")
    sim.add_argument("--manifest", default=os.path.join(here, "..", "..", "shared", "corpus", "MANIFEST.tsv"))
    sim.add_argument("--no-corpus", action="store_true", help="use the log-normal sizes even when the corpus is there")
    sim.add_argument("--baselines", action="store_true",
                     help="also simulate random balancing (no hash) and one disk of the same total size")
    sim.add_argument("--seed", type=int, default=13)

    for name, text in (("place", "print the node nginx picks for each key on stdin"),
                       ("check", "compare observed placements with the prediction")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--nodes", required=True, type=lambda t: t.split(","),
                       help="the upstream's servers in config order, comma-separated (NAME=HOST:PORT allowed)")
        p.add_argument("--down", action="append", default=[], help="a node that is down (repeatable)")
        if name == "check":
            p.add_argument("observations", help="source<TAB>node lines or nginx's access log; - for stdin")

    rp = sub.add_parser("replay", help="compare a real run's request log with the model")
    rp.add_argument("--nodes", required=True, type=lambda t: t.split(","))
    rp.add_argument("--budget", type=parse_size, required=True, help="each node's --max-disk-size")
    rp.add_argument("--memory-cache", type=parse_size, default=0,
                    help="each node's --memory-cache-size; 0 (default) leaves serve's memory cache out of the model")
    rp.add_argument("--ladder", type=lambda t: {int(x) for x in t.split(",")}, default=set(LADDER),
                    help="the sizes stored on disk (default serve's 64,128,256,512,1024)")
    rp.add_argument("--original-sizes", help="with an nginx access log: a TSV of source URL and original bytes")
    rp.add_argument("--origin-root", help="with an nginx access log: the origin's document root, for original sizes")
    rp.add_argument("--metadata-bytes", type=lambda t: tuple(int(x) for x in t.split(",")), default=(None, None),
                    help=f"BASE,PER_THUMBNAIL: the metadata value's bytes (default {METADATA_BYTES},{METADATA_PER_THUMBNAIL})")
    rp.add_argument("--late-trim", action="store_true",
                    help="run each trim after the node's next lookup rather than right after the commit")
    rp.add_argument("--show", type=int, default=10, help="disagreements to print (default 10)")
    rp.add_argument("--dump-state", help="write each node's modelled entries at the end, oldest first: node, source, bytes")
    rp.add_argument("trace", help="a TSV with a header (source, node, served, original_bytes, thumbnail_bytes, "
                                  "variant) or nginx's access log; - for stdin")

    argv = sys.argv[1:]
    if not argv or argv[0] not in ("simulate", "place", "check", "replay", "-h", "--help"):
        argv = ["simulate"] + argv
    args = parser.parse_args(argv)
    if args.command == "simulate":
        if len(args.thumb_medians) != 2 or len(args.size_mix) != 2:
            parser.error("--thumb-medians and --size-mix take 2 values")
        run_simulate(args)
        return 0
    if args.command == "place":
        run_place(args)
        return 0
    if args.command == "check":
        return run_check(args)
    return run_replay(args)


if __name__ == "__main__":
    sys.exit(main())
