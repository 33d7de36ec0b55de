#!/bin/sh
# firefox-esr started on a profile that lives on a FUSE mount (bindfs
# mirroring a local folder, as a home on a network filesystem) whose daemon
# has stopped, as a hung file server does.
. "$(dirname "$0")/../common/realapps.sh"
mkdir -p src/profile
cat >src/profile/user.js <<'JS'
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("browser.aboutwelcome.enabled", false);
user_pref("app.update.enabled", false);
JS
ra_fuse_mount src mnt || exit 1
ra_stop "$(cat fuse.pid)"
exec /usr/bin/firefox-esr --no-remote --profile "$PWD/mnt/profile" about:blank
