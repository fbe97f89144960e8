#!/usr/bin/python3 -I
"""Lay out a container's configuration from kolla's config.json, as kolla images do at start (our own subset).

kolla-ansible mounts /etc/kolla/<service>/ read-only at /var/lib/kolla/config_files/ and the image's start runs this
as root (sudo -E) before the service: it copies each config_files entry to its place with its owner and mode, makes
the directories, fixes the permissions, and writes the command to /run_command for kolla_start to exec.

config.json (kolla's format; the keys used here):
  command          the service's command line
  config_files     [{source, dest, owner: "user[:group]", perm: "0600", optional: bool}]  source may be a glob
  directories      [{path, owner, perm}]
  permissions      [{path, owner, perm?, recurse?}]
KOLLA_CONFIG_STRATEGY: COPY_ALWAYS copies at every start (kolla-ansible's default, so that a restart takes a changed
file); COPY_ONCE copies at the first start only (/configured marks it), a change then needs a new container.
Not done here (kolla's own does): merge and preserve_properties, config.yaml, the defaults backup, --check.
Exit 1 with one line naming the entry when config.json is wrong or a required source is missing.
"""
import glob
import grp
import json
import os
import pwd
import shutil
import sys

CONFIG_DIR = os.environ.get('KOLLA_CONFIG_DIR', '/var/lib/kolla/config_files')
# Where the command goes for kolla_start (tests: elsewhere).
RUN_COMMAND = os.environ.get('KOLLA_RUN_COMMAND', '/run_command')


class ConfigError(Exception):
    pass


def ids(owner):
    user, _, group = owner.partition(':')
    try:
        uid = pwd.getpwnam(user).pw_uid
        gid = grp.getgrnam(group or user).gr_gid
    except KeyError as error:
        raise ConfigError('owner %r: no such user or group in this image' % owner) from error
    return uid, gid


def apply(path, owner, perm):
    uid, gid = ids(owner)
    os.chown(path, uid, gid)
    if perm is not None:
        os.chmod(path, int(perm, 8))


def copy_file(entry):
    for key in ('source', 'dest', 'owner', 'perm'):
        if key not in entry:
            raise ConfigError('config_files entry %s: no %r' % (json.dumps(entry), key))
    for key in ('merge', 'preserve_properties'):
        if entry.get(key):
            raise ConfigError('config_files entry %s: %r is not supported here' % (entry['source'], key))
    sources = sorted(glob.glob(entry['source']))
    if not sources:
        if entry.get('optional'):
            return
        raise ConfigError('%s: missing, and the entry is not optional' % entry['source'])
    for source in sources:
        dest = entry['dest']
        if dest.endswith('/') or len(sources) > 1:
            dest = os.path.join(dest, os.path.basename(source))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if os.path.isdir(dest) and not os.path.islink(dest):
            shutil.rmtree(dest)
        elif os.path.lexists(dest):
            os.remove(dest)
        shutil.copy(source, dest)
        apply(dest, entry['owner'], entry['perm'])


def set_permissions(entry):
    path, owner, perm = entry['path'], entry['owner'], entry.get('perm')
    if not os.path.exists(path):
        return
    apply(path, owner, perm)
    if entry.get('recurse') and os.path.isdir(path):
        for top, dirs, files in os.walk(path):
            for name in dirs + files:
                apply(os.path.join(top, name), owner, None)


def main():
    strategy = os.environ.get('KOLLA_CONFIG_STRATEGY')
    if strategy not in ('COPY_ALWAYS', 'COPY_ONCE'):
        raise ConfigError('KOLLA_CONFIG_STRATEGY is %r: set COPY_ALWAYS or COPY_ONCE' % strategy)
    path = os.path.join(CONFIG_DIR, 'config.json')
    try:
        with open(path, encoding='utf-8') as handle:
            config = json.load(handle)
    except (OSError, ValueError) as error:
        raise ConfigError('%s: %s' % (path, error)) from error
    if not isinstance(config.get('command'), str):
        raise ConfigError('%s: no "command"' % path)
    if strategy == 'COPY_ONCE' and os.path.exists('/configured'):
        print('kolla_set_configs: COPY_ONCE and configured before: nothing copied')
        return
    for entry in config.get('directories', []):
        os.makedirs(entry['path'], exist_ok=True)
        apply(entry['path'], entry['owner'], entry.get('perm'))
    for entry in config.get('config_files', []):
        copy_file(entry)
    with open(RUN_COMMAND, 'w', encoding='utf-8') as handle:
        handle.write(config['command'])
    os.chmod(RUN_COMMAND, 0o644)
    for entry in config.get('permissions', []):
        set_permissions(entry)
    if strategy == 'COPY_ONCE':
        open('/configured', 'w').close()
    print('kolla_set_configs: %d file(s) from %s, command: %s' % (len(config.get('config_files', [])), path, config['command']))


if __name__ == '__main__':
    try:
        main()
    except ConfigError as error:
        sys.stderr.write('kolla_set_configs: %s\n' % error)
        sys.exit(1)
