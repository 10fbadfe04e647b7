#!/bin/sh
# The image's entrypoint: gets /config ready for the user scanrelay runs as, then runs the command (the
# Dockerfile's `node … dist/scanrelay.mjs …`) as that user.
#
# Started as root (the default): /config and what is in it is given to PUID:PGID (1000:1000 unless set), because
# the folder Docker creates for a bind mount that does not exist yet is root's, and the first start would
# otherwise fail on it; then the command runs as PUID:PGID (setpriv, from util-linux, which Debian always has).
# Started with --user: nothing can be chowned, so /config is only checked, and when that user cannot write it
# the one line printed says the chown that fixes it.
# UMASK (default 022) applies to the files scanrelay writes into /config; config.json and the queue are written
# 0600 whatever it is. TZ is passed on as it is: Node reads it with its own time-zone data (ICU), so the log's
# local times follow it whether or not the image has tzdata.
# /config is the only place written: the image runs with --read-only and a tmpfs /tmp.
set -eu

# /config, unless a test points it at a folder of its own.
config_dir="${SCANRELAY_CONFIG_DIR:-/config}"
puid="${PUID:-1000}"
pgid="${PGID:-1000}"
umask_value="${UMASK:-022}"

say() {
  printf 'scanrelay: %s\n' "$*" >&2
}

case "$puid" in '' | *[!0-9]*) say "PUID must be a number (a uid), not '$puid'"; exit 64 ;; esac
case "$pgid" in '' | *[!0-9]*) say "PGID must be a number (a gid), not '$pgid'"; exit 64 ;; esac
# 1-65534 (65535 and up are not users: setpriv takes 4294967296 for 0, root), or 0 written plainly for root.
in_range() {
  case "$1" in
    0 | [1-9] | [1-9][0-9] | [1-9][0-9][0-9] | [1-9][0-9][0-9][0-9]) return 0 ;;
    [1-9][0-9][0-9][0-9][0-9]) [ "$1" -le 65534 ] ;;
    *) return 1 ;;
  esac
}
in_range "$puid" || { say "PUID must be a uid from 1 to 65534 (or 0, for root), not '$puid'"; exit 64; }
in_range "$pgid" || { say "PGID must be a gid from 1 to 65534 (or 0, for root), not '$pgid'"; exit 64; }
case "$umask_value" in
  [0-7][0-7][0-7] | [0-7][0-7][0-7][0-7]) ;;
  *) say "UMASK must be three or four octal digits (022, 0027), not '$umask_value'"; exit 64 ;;
esac
umask "$umask_value"

# The image's health check (the Dockerfile's HEALTHCHECK): run as the user scanrelay runs as, never as root on the
# files that user owns; nothing of /config is changed.
if [ "${1:-}" = healthcheck ]; then
  shift
  if [ "$(id -u)" = 0 ] && [ "$puid" != 0 ]; then
    exec setpriv --reuid="$puid" --regid="$pgid" --clear-groups -- "$@"
  fi
  exec "$@"
fi

# The host folder mounted at $config_dir as this container's mount table names it, else a placeholder: a hint
# for the chown line (a bind mount from a file system mounted elsewhere on the host shows its path inside it).
host_folder() {
  if [ -r /proc/self/mountinfo ]; then
    # id parent major:minor root mount-point …; spaces in paths are written \040, which %b turns back.
    while read -r _ _ _ root point _; do
      if [ "$point" = "$config_dir" ]; then
        printf "'%b'" "$root"
        return 0
      fi
    done </proc/self/mountinfo
  fi
  printf '<the host folder mounted at %s>' "$config_dir"
}

# What the user scanrelay runs as cannot use: the folder (it creates files there), config.json (read), the
# queue and the log (written); printed, nothing when all is well. Run as that user: the script is fixed text,
# the folder its argument.
# shellcheck disable=SC2016 # expanded by the sh that runs it, as that user
unusable='
  d=$1
  if [ ! -d "$d" ] || [ ! -w "$d" ] || [ ! -x "$d" ]; then echo "$d"; exit 0; fi
  [ ! -e "$d/config.json" ] || [ -r "$d/config.json" ] || { echo "$d/config.json"; exit 0; }
  for f in "$d/queue.db" "$d/queue.db-wal" "$d/queue.db-shm" "$d/queue.db.lock" "$d/scanrelay.log"; do
    [ ! -e "$f" ] || [ -w "$f" ] || { echo "$f"; exit 0; }
  done'

# One line: what cannot be used, by whom, and the exact chown (or how to let this script do it).
refuse() {
  what=$1 uid=$2 gid=$3 why=$4
  say "$what is not writable by uid $uid gid $gid, the user scanrelay runs as${why}. On the host, run: sudo chown -R $uid:$gid $(host_folder)$5"
  exit 77
}

if [ "$(id -u)" != 0 ]; then
  # --user: run as that user, as asked.
  uid=$(id -u)
  gid=$(id -g)
  bad=$(sh -c "$unusable" sh "$config_dir")
  [ -z "$bad" ] || refuse "$bad" "$uid" "$gid" '' ' (or start the container without --user, as root, with PUID and PGID: it then does this itself)'
  exec "$@"
fi

if [ "$puid" = 0 ]; then
  # PUID=0 asks for root: nothing to hand over.
  exec "$@"
fi

mkdir -p "$config_dir"
# Only what is not theirs yet, so a restart changes nothing; -h: a link is changed, never what it points to.
why=''
if ! failed=$(find "$config_dir" \( ! -user "$puid" -o ! -group "$pgid" \) -exec chown -h "$puid:$pgid" {} + 2>&1); then
  # A read-only mount, or NFS that maps root to nobody: checked below, named if it matters.
  why=" (giving it to them failed: $(printf '%s' "$failed" | head -n 1))"
fi
bad=$(setpriv --reuid="$puid" --regid="$pgid" --clear-groups -- sh -c "$unusable" sh "$config_dir")
[ -z "$bad" ] || refuse "$bad" "$puid" "$pgid" "$why" ''
exec setpriv --reuid="$puid" --regid="$pgid" --clear-groups -- "$@"
