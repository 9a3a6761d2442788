#!/bin/sh
# The AD's tape ablations side by side (issue 26): each bench/grad program's
# gradient (`grad ARGS`, ARGS from its `// args:` line), built with the
# default AD and with each ablation switch, run at PARC_NUM_THREADS workers
# (default 1), REPS times alternating (default 5): median wall time and
# median peak resident memory (GNU time's %M), the tape report's total, and
# the tape's peak at run time as PARC_AD_STATS=1 prints it (one more run,
# not timed): bytes recorded (what the report predicts, for the largest of
# the program's gradient calls) and bytes of heap the tapes held.
# Usage: bench/tape-ablation.sh [PARC] [REPS] [PROGRAMS...]
# (PARC defaults to target/release/parc; run from the workspace root.)
set -eu
PARC=${1:-target/release/parc}
REPS=${2:-5}
shift 2 2>/dev/null || shift $#
PROGRAMS=${*:-$(ls bench/grad/*.pc)}
WORKERS=${PARC_NUM_THREADS:-1}
OUT=$(mktemp -d /tmp/tape-ablation.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
CONFIGS="default --ad-no-flat-tapes"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); workers: $WORKERS; reps: $REPS"
printf '| program | build | tape bytes per gradient call | run-time tape peak: recorded / allocated | wall s (median) | peak RSS MB (median) |\n|---|---|---|---|---|---|\n'
for p in $PROGRAMS; do
    name=$(basename "$p" .pc)
    args=$(sed -n 's,^// args: *,,p' "$p" | head -1)
    [ -n "$args" ] || continue
    for c in $CONFIGS; do
        flag=$([ "$c" = default ] && echo "" || echo "$c")
        # shellcheck disable=SC2086
        "$PARC" build $flag --stats "$p" -o "$OUT/$name.$c" 2>"$OUT/$name.$c.stats"
        # shellcheck disable=SC2086
        PARC_AD_STATS=1 PARC_NUM_THREADS=$WORKERS "$OUT/$name.$c" grad $args 2>"$OUT/$name.$c.peak" >/dev/null
    done
    for r in $(seq "$REPS"); do
        for c in $CONFIGS; do
            # shellcheck disable=SC2086
            PARC_NUM_THREADS=$WORKERS /usr/bin/time -f '%e %M' -o "$OUT/t" "$OUT/$name.$c" grad $args >/dev/null
            cut -d' ' -f1 "$OUT/t" >>"$OUT/$name.$c.wall"
            cut -d' ' -f2 "$OUT/t" >>"$OUT/$name.$c.rss"
        done
    done
    for c in $CONFIGS; do
        tape=$(sed -n 's,^ *\(.*\)  ad: bytes recorded per call of .*,\1,p' "$OUT/$name.$c.stats" | paste -sd';')
        wall=$(median <"$OUT/$name.$c.wall")
        rss=$(median <"$OUT/$name.$c.rss" | awk '{printf "%.1f", $1 / 1024}')
        peak=$(sed -n 's,^PARC_AD_STATS: gradient tape peak \([0-9]*\) bytes recorded (\([0-9]*\) bytes allocated).*,\1 / \2,p' "$OUT/$name.$c.peak")
        printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$c" "$tape" "$peak" "$wall" "$rss"
    done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
