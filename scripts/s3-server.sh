#!/usr/bin/env bash
# A local S3-compatible server for gipfzero's object-store tests: moto's server, installed
# once per user into a venv the way scripts/torch-env.sh installs torch, and started on
# 127.0.0.1 on a free port.
#
#   scripts/s3-server.sh install
#       installs moto[server]==VERSION into
#       ${GIPFZERO_S3_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/gipfzero/moto-VERSION}
#       (idempotent: a marker file is written only after pip and an import check succeeded,
#       a directory without it is rebuilt, a lock serialises concurrent installs) and prints
#       the venv's path.
#   scripts/s3-server.sh start [--bucket NAME]... [--auth] [--until-stdin-closes]
#       installs if needed, then runs the server in the foreground (exec: killing this
#       process kills the server). Once the server answers, it prints lines of KEY=VALUE on
#       stdout and then serves until killed:
#         endpoint=http://127.0.0.1:PORT
#         access_key_id=...        (only with --auth)
#         secret_access_key=...    (only with --auth)
#         ready
#       --bucket creates a bucket (us-east-1). --auth makes the server check credentials
#       (moto's IAM mode): an IAM user with an allow-all policy and an access key is created,
#       and only that key with its secret is accepted afterwards; the key is printed because
#       it is a throwaway key of a server that lives on 127.0.0.1 for one test run.
#       --until-stdin-closes also stops the server when its standard input reaches its end,
#       so a test that spawns it with a pipe cannot leave it running if the test dies.
set -euo pipefail

gipfzero_moto_version=5.2.5
venv=${GIPFZERO_S3_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/gipfzero/moto-$gipfzero_moto_version}
python=${GIPFZERO_PYTHON:-python3}

install() {
    if [ -f "$venv/.gipfzero-complete" ]; then return 0; fi
    mkdir -p "$(dirname "$venv")"
    (
        flock 9 || exit 1
        if [ -f "$venv/.gipfzero-complete" ]; then exit 0; fi
        echo "gipfzero: installing moto[server]==$gipfzero_moto_version into $venv (once per machine)" >&2
        rm -rf "$venv"
        "$python" -m venv "$venv" || exit 1
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            "moto[server]==$gipfzero_moto_version" || exit 1
        "$venv/bin/python" -c "import moto.server, boto3, sys; sys.exit(0 if moto.__version__ == '$gipfzero_moto_version' else 1)" || exit 1
        touch "$venv/.gipfzero-complete"
    ) 9>"$venv.lock" || {
        echo "gipfzero: could not install moto[server]==$gipfzero_moto_version into $venv" >&2
        return 1
    }
}

command=${1:-start}
[ $# -gt 0 ] && shift
case "$command" in
    install)
        install
        echo "$venv"
        ;;
    start)
        install
        exec "$venv/bin/python" -c '
import os, sys, threading

args = sys.argv[1:]
buckets, auth, until_eof = [], False, False
while args:
    arg = args.pop(0)
    if arg == "--bucket" and args:
        buckets.append(args.pop(0))
    elif arg == "--auth":
        auth = True
    elif arg == "--until-stdin-closes":
        until_eof = True
    else:
        sys.exit(f"s3-server.sh start: unknown argument {arg!r}")

# moto reads its settings when imported. In IAM mode the first three requests (the set-up of
# the user below) are let through without credentials, every later one is checked.
if auth:
    os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")

import logging
logging.getLogger("werkzeug").setLevel(logging.ERROR)
import boto3
from moto.server import ThreadedMotoServer

server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
host, port = server.get_host_and_port()
endpoint = f"http://{host}:{port}"

def client(service, key="unused", secret="unused"):
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=secret)

lines = [f"endpoint={endpoint}"]
key, secret = "unused", "unused"
if auth:
    iam = client("iam")
    iam.create_user(UserName="gipfzero-test")
    iam.put_user_policy(UserName="gipfzero-test", PolicyName="all",
        PolicyDocument="{\"Version\": \"2012-10-17\", \"Statement\": [{\"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\"}]}")
    created = iam.create_access_key(UserName="gipfzero-test")["AccessKey"]
    key, secret = created["AccessKeyId"], created["SecretAccessKey"]
    lines += [f"access_key_id={key}", f"secret_access_key={secret}"]
s3 = client("s3", key, secret)
for bucket in buckets:
    s3.create_bucket(Bucket=bucket)
s3.list_buckets()
print("\n".join(lines + ["ready"]), flush=True)

stop = threading.Event()
if until_eof:
    def watch():
        while sys.stdin.buffer.read(65536):
            pass
        stop.set()
    threading.Thread(target=watch, daemon=True).start()
try:
    stop.wait()
except KeyboardInterrupt:
    pass
server.stop()
' "$@"
        ;;
    *)
        echo "usage: scripts/s3-server.sh install | start [--bucket NAME]... [--auth] [--until-stdin-closes]" >&2
        exit 2
        ;;
esac
