#!/bin/sh
# Runs every fuzz target in turn for SECS seconds each (default 600), one job at a time,
# after seeding the corpora. Needs cargo-fuzz and a nightly toolchain. Logs: fuzz/logs/.
# Crashes land in fuzz/artifacts/<target>/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:-600}
cd "$here"
./seed.sh
mkdir -p logs
cargo +nightly fuzz build -s none -O -a || exit 1
for t in preprocess parse load; do
  cargo +nightly fuzz run -s none -O -a "$t" "corpus/$t" -- \
    -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    > "logs/$t.log" 2>&1
  echo "$t: exit $? ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | tail -1))"
done
