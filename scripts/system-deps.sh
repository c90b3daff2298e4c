#!/usr/bin/env bash
# Debian packages the integration tests run for real: Chromium (browser tests), Prometheus and
# snmp_exporter, traceroute/mtr/iptables/nftables for the namespace lab, bubblewrap for the
# analysis sandbox's prison, PostgreSQL (the team store's tests start their own cluster). Installs only what is missing.
set -euo pipefail
need=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }
have chromium || need+=(chromium)
have prometheus || need+=(prometheus)
have prometheus-snmp-exporter || need+=(prometheus-snmp-exporter)
have traceroute || need+=(traceroute)
have ip || need+=(iproute2)
have ping || need+=(iputils-ping)
have mtr || need+=(mtr-tiny)
have iptables || need+=(iptables)
have nft || need+=(nftables)
have bwrap || need+=(bubblewrap)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
# rsyslog and syslog-ng-core (testkit/netopsai_testkit/peers/syslog_servers.py) conflict as Debian packages (both
# provide system-log-daemon): syslog-ng-core is installed, rsyslog's libraries too, and its
# package is only unpacked into /opt/rsyslog (no service, no /etc) further down.
have syslog-ng || need+=(syslog-ng-core)
rsyslog_unpack=""
have rsyslogd || [ -x /opt/rsyslog/usr/sbin/rsyslogd ] || { need+=(libestr0 libfastjson4 liblognorm5); rsyslog_unpack=1; }
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "missing ${need[*]} and not root: the tests that need them will skip (apt-get install ${need[*]})" >&2
    exit 0
fi
apt-get update -qq </dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" </dev/null
if [ -n "$rsyslog_unpack" ]; then
    deb_dir=$(mktemp -d) && (cd "$deb_dir" && apt-get download -qq rsyslog </dev/null \
        && dpkg -x rsyslog_*.deb /opt/rsyslog) && rm -rf "$deb_dir"
fi
