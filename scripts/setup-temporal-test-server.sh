#!/usr/bin/env bash
# Finds or installs Temporal's time-skipping test server (the Java one that @temporalio/testing's createTimeSkipping
# runs) and prints the path of an executable that starts it (`<exe> <port>`) on stdout.
# Order: $TEMPORAL_TEST_SERVER, the launcher cached in .tools/temporal-test-server/, then a build from Maven Central:
# io.temporal:temporal-test-server with its dependencies through `mvn`, run on the local JDK (17 or later).
# @temporalio/testing would otherwise download a native build from outside the package registries, which this
# project's machines cannot reach. The SDK gives a server 5 s to listen, so the launcher starts the JVM with a class
# data sharing archive made here (about 1.5 s to listen on a loaded 2-core machine instead of 7-9 s).
# Progress and failures go to stderr so callers can capture the path alone; a failure exits non-zero.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.tools/temporal-test-server"
launcher="$dir/temporal-test-server"
version="${TEMPORAL_TEST_SERVER_VERSION:-1.31.0}"
say() { echo "[setup-temporal-test-server] $*" >&2; }
use() { say "using $1 ($2)"; echo "$1"; exit 0; }

if [ -n "${TEMPORAL_TEST_SERVER:-}" ]; then
  [ -x "$TEMPORAL_TEST_SERVER" ] && use "$TEMPORAL_TEST_SERVER" "TEMPORAL_TEST_SERVER"
  say "TEMPORAL_TEST_SERVER=$TEMPORAL_TEST_SERVER is not executable; trying the other ways"
fi

# The launcher names its jars by absolute path: a checkout that moved rebuilds it.
[ -x "$launcher" ] && grep -q "$dir/lib/temporal-test-server-$version.jar" "$launcher" && grep -q "slf4j-nop" "$launcher" && use "$launcher" "cached in .tools/temporal-test-server"

command -v java >/dev/null 2>&1 || { say "java not found: the test server needs a JDK 17 or later"; exit 1; }
command -v mvn >/dev/null 2>&1 || { say "mvn not found: it fetches io.temporal:temporal-test-server from Maven Central"; exit 1; }

rm -rf "$dir" && mkdir -p "$dir/lib"
cat > "$dir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>temporal-test-server-launcher</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId><version>$version</version></dependency>
    <!-- The server logs through SLF4J; without a binding it warns about the missing one on every start. -->
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-nop</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
POM
say "fetching io.temporal:temporal-test-server:$version and its dependencies with mvn"
if ! mvn -q -B -f "$dir/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$dir/lib" >&2; then
  say "mvn could not fetch io.temporal:temporal-test-server:$version (Maven Central unreachable?)"
  exit 1
fi
classpath="$(ls "$dir"/lib/*.jar | sort | paste -sd: -)"

# Class data sharing: record the classes one start loads, then dump them into an archive the launcher maps.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 47999)"
java -XX:DumpLoadedClassList="$dir/classes.lst" -cp "$classpath" io.temporal.testserver.TestServer "$port" >/dev/null 2>&1 &
training=$!
for _ in $(seq 1 120); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.5
done
kill "$training" 2>/dev/null; wait "$training" 2>/dev/null
archive=""
if java -Xshare:dump -XX:SharedClassListFile="$dir/classes.lst" -XX:SharedArchiveFile="$dir/classes.jsa" -cp "$classpath" >/dev/null 2>&1; then
  archive="-XX:SharedArchiveFile=$dir/classes.jsa"
else
  say "no class data sharing archive (the server starts more slowly)"
fi

cat > "$launcher" <<LAUNCHER
#!/usr/bin/env bash
# Made by scripts/setup-temporal-test-server.sh: Temporal's time-skipping test server, \`\$0 <port>\`.
exec java $archive -XX:TieredStopAtLevel=1 -cp "$classpath" io.temporal.testserver.TestServer "\$@"
LAUNCHER
chmod +x "$launcher"
use "$launcher" "built from io.temporal:temporal-test-server:$version"
