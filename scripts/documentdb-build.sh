#!/usr/bin/env bash
# Builds the PostgreSQL extensions of the DocumentDB engine from the vendored sources
# (third_party/documentdb/: DocumentDB, pg_cron, pgvector) into a staging tree:
#
#   scripts/documentdb-build.sh STAGE_DIR
#
# Each extension is built with PGXS against PG_CONFIG (default: Debian's PostgreSQL 15) and installed with
# `make install DESTDIR=STAGE_DIR`, so STAGE_DIR holds PostgreSQL's own paths (…/lib/postgresql/15/lib,
# …/share/postgresql/15/extension). `slipway db documentdb start` copies that tree into PostgreSQL's
# directories. The archives' checksums are checked before anything is extracted.
#
# Needs the Debian packages named in src/db/documentdb.ts (DOCUMENTDB_PACKAGES): the PostgreSQL server and
# its development files, libbson, PCRE2, Intel's decimal math library, Kerberos headers, pkg-config.
set -euo pipefail

stage=${1:?usage: documentdb-build.sh STAGE_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
vendor="$root/third_party/documentdb"
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
jobs=${BUILD_JOBS:-2}

say() { printf 'documentdb-build: %s\n' "$*" >&2; }

[ -x "$PG_CONFIG" ] || { say "no pg_config at $PG_CONFIG (install postgresql-server-dev-15, or set PG_CONFIG)"; exit 1; }

say "checking the vendored archives against SHA256SUMS"
(cd "$vendor" && sha256sum --check --strict --quiet SHA256SUMS) >&2

mkdir -p "$stage"
stage=$(cd "$stage" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/slipway-documentdb-build.XXXXXX")
trap 'rm -rf "$work"' EXIT

# DocumentDB asks pkg-config for `intelmathlib`; Debian's libintelrdfpmath-dev ships the library
# (libbidgcc000) and headers without a pkg-config entry, so one is written for this build only.
mkdir -p "$work/pkgconfig"
cat >"$work/pkgconfig/intelmathlib.pc" <<'EOF'
prefix=/usr
libdir=${prefix}/lib/x86_64-linux-gnu
includedir=${prefix}/include

Name: intelmathlib
Description: Intel Decimal Floating-Point Math Library (Debian libintelrdfpmath-dev)
Version: 2.0
Cflags: -I${includedir}
Libs: -L${libdir} -lbidgcc000
EOF
export PKG_CONFIG_PATH="$work/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"

# with_llvm=no: no JIT bitcode (Debian's server-dev package would want clang for it).
pgxs() { make -j"$jobs" PG_CONFIG="$PG_CONFIG" with_llvm=no "$@"; }

say "pg_cron 1.6.3"
mkdir -p "$work/pg_cron" && tar -xzf "$vendor/pg_cron-1.6.3.tgz" -C "$work/pg_cron"
pgxs -C "$work/pg_cron" >/dev/null
pgxs -C "$work/pg_cron" install DESTDIR="$stage" >/dev/null

say "pgvector 0.8.0"
mkdir -p "$work/pgvector" && tar -xzf "$vendor/pgvector-0.8.0.tgz" -C "$work/pgvector"
pgxs -C "$work/pgvector" OPTFLAGS= >/dev/null
pgxs -C "$work/pgvector" OPTFLAGS= install DESTDIR="$stage" >/dev/null

# Debian's libbson 1.23 lacks BSON_SUBTYPE_SENSITIVE (libbson 1.25+); DocumentDB only names the value.
say "DocumentDB (pg_documentdb_core, pg_documentdb)"
mkdir -p "$work/documentdb" && tar -xzf "$vendor"/documentdb-*.tgz -C "$work/documentdb"
for ext in pg_documentdb_core pg_documentdb; do
  pgxs -C "$work/documentdb/$ext" COPT="-DBSON_SUBTYPE_SENSITIVE=0x08 -Wno-error=switch" >/dev/null
  pgxs -C "$work/documentdb/$ext" COPT="-DBSON_SUBTYPE_SENSITIVE=0x08 -Wno-error=switch" install DESTDIR="$stage" >/dev/null
done

say "done: $stage"
