#!/usr/bin/env bash
# Writes the upgrade corpus next to this script: one folder per store
# schema, made by the last commit that wrote that schema (the one
# before the next schema's; for schema 1 the last one before it that
# builds: the Console moved to stored overviews a few commits ahead of
# the store). Run from anywhere inside the repository; it needs git, go
# and a minute or more (each commit is built). Tags schema-1 … schema-6
# may name the same commits; the hashes work without them.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
go run ./e2e/corpus -out store/testdata/upgrade \
	schema-1=7806d66b10cc4f1b04d42d6f4d093c76eb8def0e \
	schema-2=221c0c5107aed62af75e13dd7a3cdbc65338b407 \
	schema-3=73a93212953af2caae22d03511076a01909aaf29 \
	schema-4=68b526721daa57e1a897279ea65cbd00e871961b \
	schema-5=01591df1e5e4c1f47a8002368ac8291f07b011a5 \
	schema-6=98aa0e99eb2011d5c68e85f291924b27b9a49ac8
