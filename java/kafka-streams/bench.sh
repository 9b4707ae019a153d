#!/usr/bin/env bash
# Kafka Streams stores on rocksdb-cuckoo against the default store options:
# builds this module, runs dev.rocksdbcuckoo.kafka.bench.StoreBenchmark and
# writes its table to RESULTS_FILE (and to the terminal).
#
#   java/kafka-streams/bench.sh RESULTS_FILE [--table-keys=N --lookups=N
#       --count-keys=N --count-records=N --window-keys=N --window-records=N
#       --value-bytes=N --reps=N --rows=join,count,window --dir=PATH]
#
# A quick run: bench.sh /tmp/quick.txt --table-keys=50000 --lookups=50000 \
#   --count-keys=50000 --count-records=100000 --window-keys=10000 --window-records=100000
# JAVA_OPTS (e.g. -Xmx8g) goes to the JVM; MVN_ARGS to Maven (e.g.
# -Drocksdbjni.version=10.10.1-cuckoo).
set -euo pipefail

if [[ $# -lt 1 || $1 == --* ]]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
results=$1
shift
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck disable=SC2086 # MVN_ARGS is a list of words.
mvn -q -B -Dstyle.color=never -f "$here/pom.xml" ${MVN_ARGS:-} -Dmaven.test.skip=true compile \
  dependency:build-classpath -Dmdep.includeScope=runtime \
  -Dmdep.outputFile="$here/target/runtime-classpath.txt"

mkdir -p "$(dirname "$results")"
# shellcheck disable=SC2086 # JAVA_OPTS is a list of words.
java ${JAVA_OPTS:-} -Dorg.slf4j.simpleLogger.defaultLogLevel=error \
  -cp "$here/target/classes:$(cat "$here/target/runtime-classpath.txt")" \
  dev.rocksdbcuckoo.kafka.bench.StoreBenchmark "$@" | tee "$results"
