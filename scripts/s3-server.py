#!/usr/bin/env python3
"""An S3-compatible server on the loopback address for the remote shader cache's tests (moto's, from PyPI
`moto[server]`): starts on a free port, creates the bucket named on the command line, prints `ready <port>`, and
serves until its standard input closes (the test that started it ended).

    python3 scripts/s3-server.py shader-cache
"""
import sys
import threading

import boto3
from moto.server import ThreadedMotoServer


def main() -> None:
    bucket = sys.argv[1] if len(sys.argv) > 1 else "shader-cache"
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    s3 = boto3.client(
        "s3",
        endpoint_url=f"http://{host}:{port}",
        aws_access_key_id="test",
        aws_secret_access_key="test",
        region_name="us-east-1",
    )
    s3.create_bucket(Bucket=bucket)
    print(f"ready {port}", flush=True)
    done = threading.Event()

    def wait_for_eof() -> None:
        sys.stdin.read()
        done.set()

    threading.Thread(target=wait_for_eof, daemon=True).start()
    done.wait()
    server.stop()


if __name__ == "__main__":
    main()
