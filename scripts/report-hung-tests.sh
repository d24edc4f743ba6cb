#!/usr/bin/env bash
# Called by scripts/test.sh when the test run passes its time limit: names the tests that
# started and never ended (from swift test's output in $1) and prints every thread's stack of
# the test process (a child of `swift test`, pid $3), so the log says what hung and where.
log=$1
limit=$2
runner=$3
echo
echo "=== The test run did not finish within ${limit}s (TEST_TIME_LIMIT). Tests still running:"
sed 's/\x1b\[[0-9;]*m//g' "$log" | awk '
    /^◇ Test [^ ]+ started\./ { name = $3; running[name] = 1 }
    /^[✔✘] Test [^ ]+ / { delete running[$3] }
    END { for (name in running) print "  " name }'
for pid in $(pgrep -P "$runner"); do
    echo "=== Threads of the test process $pid:"
    if command -v gdb >/dev/null 2>&1; then
        timeout 120 gdb -p "$pid" -batch -ex "thread apply all bt 40" 2>&1 | grep -E '^(Thread|#)' | head -3000
    else
        echo "(gdb is not installed: no stacks)"
    fi
    echo "=== Its children:"
    ps -o pid,etime,args --ppid "$pid" || true
done
