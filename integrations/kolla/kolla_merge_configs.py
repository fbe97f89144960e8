#!/usr/bin/python3 -I
"""Merge oslo.config files the way kolla-ansible's merge_configs does, into the file kolla mounts into a container.

Usage: kolla_merge_configs.py DEST SOURCE...
  Each SOURCE that exists is read in turn (a missing one is skipped, as kolla-ansible skips a custom file the operator
  did not write): sections add up; an option a later SOURCE sets replaces every value an earlier one gave it; an option
  repeated within one SOURCE keeps all its values (a multi-valued option, e.g. [pci] device_spec). DEST is written
  `key = value`, each section once, comments dropped, mode 0660 (kolla-ansible's for /etc/kolla/<service>/nova.conf).

The sources for nova_compute's nova.conf, in kolla-ansible's order (ansible/roles/nova-cell/tasks/config.yml):
  the role's nova.conf, /etc/kolla/config/global.conf, /etc/kolla/config/nova.conf,
  /etc/kolla/config/nova/nova-compute.conf, /etc/kolla/config/nova/HOST/nova.conf,
  /etc/kolla/config/nova/HOST/nova-compute.conf.
No Jinja: the sources are plain ini here (kolla-ansible renders each as a template first).
"""
import os
import sys


def parse(text, path):
    """[(section, {key: [value, ...]})] of one file, in order; a line indented under an option continues its value."""
    sections = {}
    current = None
    key = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped[0] in '#;':
            continue
        if line[0] in ' \t' and key is not None:
            current[key].append(stripped)
            continue
        if stripped.startswith('['):
            if not stripped.endswith(']'):
                raise ValueError('%s:%d: a section header without its ]' % (path, number))
            current = sections.setdefault(stripped[1:-1].strip(), {})
            key = None
            continue
        if '=' not in stripped:
            raise ValueError('%s:%d: neither [section] nor key = value: %r' % (path, number, stripped))
        if current is None:
            current = sections.setdefault('DEFAULT', {})
        key, value = (part.strip() for part in stripped.split('=', 1))
        current.setdefault(key, []).append(value)
    return sections


def merge(sources):
    merged = {}
    for path in sources:
        try:
            with open(path, encoding='utf-8') as handle:
                text = handle.read()
        except FileNotFoundError:
            continue
        for section, options in parse(text, path).items():
            merged.setdefault(section, {}).update(options)
    return merged


def render(merged):
    out = []
    for section, options in merged.items():
        out.append('[%s]' % section)
        for key, values in options.items():
            out.extend('%s = %s' % (key, value) for value in values)
        out.append('')
    return '\n'.join(out)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write('usage: kolla_merge_configs.py DEST SOURCE...\n')
        return 2
    dest, sources = argv[1], argv[2:]
    try:
        text = render(merge(sources))
    except ValueError as error:
        sys.stderr.write('kolla_merge_configs.py: %s\n' % error)
        return 1
    partial = dest + '.partial'
    with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o660), 'w', encoding='utf-8') as handle:
        handle.write(text)
    os.chmod(partial, 0o660)
    os.replace(partial, dest)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
