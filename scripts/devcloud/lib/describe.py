#!/usr/bin/python3
"""Write the dev cloud's descriptors into the state dir: clouds.yaml, devcloud.env, devcloud.json.

Input from the environment (set by `up`): DEVCLOUD_DIR, KEYSTONE_URL, GLANCE_URL, PLACEMENT_URL, ADMIN_PASSWORD,
DEMO_PASSWORD, FERRY_PASSWORD, TENANT_PASSWORD, GLANCE_POLICY_FILE, GLANCE_POLICY_DIR, GLANCE_NEW_DEFAULTS (true/false), CEPH_A_CONF, CEPH_B_CONF, CEPH_A_FSID, CEPH_B_FSID, GLANCE_STORES (space-separated), STARTED_AT;
argv[1] = the JSON written by register.py. Every file is written to a temporary name and renamed, mode 600
(they hold passwords and application-credential secrets).
"""
import json
import os
import shlex
import sys


# Glance's rbd stores: the cluster (site) and pool of each (glance.sh writes the same into glance-api.conf, ceph.sh
# creates the pools). site-c is a second pool in site-b's cluster.
RBD_STORES = {
    "site-a": {"cluster": "site-a", "pool": "images"},
    "site-b": {"cluster": "site-b", "pool": "images"},
    "site-c": {"cluster": "site-b", "pool": "images-c"},
}
RBD_POOLS = {"site-a": ["images", "vms"], "site-b": ["images", "vms", "images-c"]}
# ceph.sh creates these users on both clusters (ferry, ferry-transfer and ferry-evict: docs/security.md).
CEPH_USERS = ["glance", "nova", "ferry", "ferry-transfer", "ferry-evict"]


def previous_started_at(path):
    try:
        with open(path) as f:
            return json.load(f).get("startedAt", "")
    except (OSError, ValueError):
        return ""


def write(path, text):
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def yaml_str(value):
    # JSON strings are valid YAML double-quoted scalars.
    return json.dumps(value)


def password_cloud(auth_url, user):
    return {"auth_type": "password", "auth": {
        "auth_url": auth_url, "username": user["name"], "password": user["password"], "project_name": user["project"],
        "user_domain_name": "Default", "project_domain_name": "Default"}}


def appcred_cloud(auth_url, appcred):
    return {"auth_type": "v3applicationcredential", "auth": {
        "auth_url": auth_url, "application_credential_id": appcred["id"],
        "application_credential_secret": appcred["secret"]}}


def clouds_yaml(auth_url, users, appcreds):
    clouds = {
        "devcloud-admin": password_cloud(auth_url, users["admin"]),
        "devcloud-member": password_cloud(auth_url, users["demo"]),
        "devcloud-admin-appcred": appcred_cloud(auth_url, appcreds["admin"]),
        "devcloud-member-appcred": appcred_cloud(auth_url, appcreds["demo"]),
        # ferry's own identities: user ferry, role ferry on project ferry (a compute node's agent), and user
        # ferry-transfer, role ferry on project admin, which owns the images (the direct transfer); the application
        # credentials carry the access rules of packaging/glance/access-rules-*.json. User ferry-evict, role ferry-evict
        # (implies ferry) on project admin: ferry evict and sync's budgets.
        "devcloud-ferry": password_cloud(auth_url, users["ferry"]),
        "devcloud-ferry-appcred": appcred_cloud(auth_url, appcreds["ferry"]),
        "devcloud-ferry-transfer": password_cloud(auth_url, users["ferry-transfer"]),
        "devcloud-ferry-transfer-appcred": appcred_cloud(auth_url, appcreds["ferry-transfer"]),
        "devcloud-ferry-evict": password_cloud(auth_url, users["ferry-evict"]),
        "devcloud-ferry-evict-appcred": appcred_cloud(auth_url, appcreds["ferry-evict"]),
        # the tenants' members (role member on tenant-a / tenant-b): boots of their own images
        "devcloud-tenant-a": password_cloud(auth_url, users["tenant-a"]),
        "devcloud-tenant-b": password_cloud(auth_url, users["tenant-b"]),
    }
    lines = ["# Written by scripts/devcloud/up; re-written on every start (application-credential secrets change).",
             "clouds:"]
    for name, cloud in clouds.items():
        lines.append(f"  {name}:")
        lines.append(f"    auth_type: {cloud['auth_type']}")
        lines.append("    auth:")
        for key, value in cloud["auth"].items():
            lines.append(f"      {key}: {yaml_str(value)}")
        lines.append("    region_name: RegionOne")
        lines.append("    interface: public")
        lines.append("    identity_api_version: 3")
    return "\n".join(lines) + "\n"


def main():
    env = os.environ
    state = env["DEVCLOUD_DIR"]
    with open(sys.argv[1]) as f:
        reg = json.load(f)
    users = {
        "admin": {"name": "admin", "password": env["ADMIN_PASSWORD"], "project": "admin"},
        "demo": {"name": "demo", "password": env["DEMO_PASSWORD"], "project": "demo"},
        "ferry": {"name": "ferry", "password": env["FERRY_PASSWORD"], "project": "ferry"},
        "ferry-transfer": {"name": "ferry-transfer", "password": env["FERRY_PASSWORD"], "project": "admin"},
        "ferry-evict": {"name": "ferry-evict", "password": env["FERRY_PASSWORD"], "project": "admin"},
        # the tenants: a member of each tenant project (register.py)
        "tenant-a": {"name": "tenant-a", "password": env["TENANT_PASSWORD"], "project": "tenant-a"},
        "tenant-b": {"name": "tenant-b", "password": env["TENANT_PASSWORD"], "project": "tenant-b"},
    }
    appcreds = {k: {"id": v["id"], "secret": v["secret"]} for k, v in reg["appcreds"].items()}
    clouds_path = os.path.join(state, "clouds.yaml")
    write(clouds_path, clouds_yaml(env["KEYSTONE_URL"], users, appcreds))

    ceph = {}
    for site, key in (("site-a", "A"), ("site-b", "B")):
        ceph[site] = {"conf": env[f"CEPH_{key}_CONF"], "fsid": env[f"CEPH_{key}_FSID"],
                      "pools": RBD_POOLS[site], "users": CEPH_USERS}
    # An upgrade in place (up on an older state dir) keeps the first start's time.
    started_at = env.get("STARTED_AT") or previous_started_at(os.path.join(state, "devcloud.json"))
    description = {
        "keystone": {"url": env["KEYSTONE_URL"]},
        "glance": {"url": env["GLANCE_URL"], "stores": env["GLANCE_STORES"].split(), "rbdStores": RBD_STORES,
                   "database": env["GLANCE_DB_URL"],
                   "log": os.path.join(state, "glance", "glance-api.log")},
        "placement": {"url": env["PLACEMENT_URL"]},
        "ceph": ceph,
        "users": users,
        "ferry": {
            "role": "ferry",
            "clouds": {"agent": "devcloud-ferry-appcred", "transfer": "devcloud-ferry-transfer-appcred",
                       "evict": "devcloud-ferry-evict-appcred"},
            "rbdUsers": {"glancePath": "ferry", "transfer": "ferry-transfer", "evict": "ferry-evict"},
            "glancePolicy": {"file": env["GLANCE_POLICY_FILE"], "dir": env["GLANCE_POLICY_DIR"],
                             "enforceNewDefaults": env["GLANCE_NEW_DEFAULTS"] == "true"},
        },
        "appcreds": appcreds,
        "cloudsYaml": clouds_path,
        "startedAt": started_at,
    }
    write(os.path.join(state, "devcloud.json"), json.dumps(description, indent=2) + "\n")

    exports = {
        "OS_CLIENT_CONFIG_FILE": clouds_path,
        "OS_CLOUD": "devcloud-admin",
        "FERRY_DEVCLOUD_DIR": state,
        "FERRY_CEPH_A_CONF": env["CEPH_A_CONF"],
        "FERRY_CEPH_B_CONF": env["CEPH_B_CONF"],
        "FERRY_CEPH_A_FSID": env["CEPH_A_FSID"],
        "FERRY_CEPH_B_FSID": env["CEPH_B_FSID"],
        "FERRY_GLANCE_URL": env["GLANCE_URL"],
        "FERRY_PLACEMENT_URL": env["PLACEMENT_URL"],
        "FERRY_KEYSTONE_URL": env["KEYSTONE_URL"],
    }
    text = "# Written by scripts/devcloud/up. Use: source " + shlex.quote(os.path.join(state, "devcloud.env")) + "\n"
    text += "".join(f"export {k}={shlex.quote(v)}\n" for k, v in exports.items())
    write(os.path.join(state, "devcloud.env"), text)


if __name__ == "__main__":
    main()
