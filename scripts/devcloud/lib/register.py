#!/usr/bin/python3
"""Register the dev cloud in Keystone through its REST API (keystone.md section 5).

Find-or-create everything, so it can run again on a live Keystone (up runs it again on a state dir made before a
user or role was added): projects service, demo, ferry and the tenants tenant-a and tenant-b (a member user each:
tenant-a, tenant-b), users glance, placement (admin on service), demo (member
on demo), ferry, ferry-transfer and ferry-evict, services image and placement with one public endpoint each in RegionOne, and
application credentials, re-created on every run because a secret cannot be read back.

ferry's own identities (docs/security.md): the role ferry, which implies reader; user ferry holds it on project ferry
(owns no image: a compute node's agent), user ferry-transfer on project admin (owns the test images: the direct RBD
transfer, since Glance lets only the owning project add a location). The role ferry-evict implies ferry and adds
removing a store's copy (delete_image_location, which Glance 25 also checks for PATCH remove /locations): user
ferry-evict holds it on project admin (ferry evict, sync's budgets), so the direct transfer's identity, which compute
nodes may hold, removes nothing. Separate users, not one user with several projects or roles: a password lets its
holder pick any project the user has a role in. Each has an application credential whose access
rules (packaging/glance/access-rules-*.json, the files an operator uses) allow exactly the Glance calls ferry makes.
User ferry also holds the role service on project ferry: the agent's token then counts as a service token beside a
booting user's (keystonemiddleware's service_token_roles = service), which is how it acts for that user
(docs/security.md, "Acting for the booting user"). Keystone 22's bootstrap makes no role service: created here.

Writes {"projects", "users", "appcreds"} as JSON to the file named by argv[1] (mode 600).

Input from the environment: KEYSTONE_URL (ending in /v3), GLANCE_URL, PLACEMENT_URL, the passwords ADMIN_PASSWORD,
DEMO_PASSWORD, GLANCE_PASSWORD, PLACEMENT_PASSWORD, FERRY_PASSWORD, TENANT_PASSWORD, and ACCESS_RULES_DIR (packaging/glance).
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

K = os.environ["KEYSTONE_URL"].rstrip("/")
# Two tenant projects, a member user each (named like its project): what a multi-tenant cloud has beside the operator's.
TENANTS = ("tenant-a", "tenant-b")
TIMEOUT_S = 30


def access_rules(name):
    """One of the access-rule files ferry ships (a JSON list of {"service", "method", "path"})."""
    with open(os.path.join(os.environ["ACCESS_RULES_DIR"], f"access-rules-{name}.json")) as f:
        return json.load(f)


def call(method, path, token=None, body=None, expect=(200, 201, 204)):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(K + path, data=data, method=method)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("X-Auth-Token", token)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
            raw = resp.read()
            status, headers = resp.status, resp.headers
    except urllib.error.HTTPError as err:
        raw, status, headers = err.read(), err.code, err.headers
    if status not in expect:
        sys.exit(f"register: {method} {path} -> {status}: {raw[:300]!r}")
    return status, headers, (json.loads(raw) if raw else None)


def password_token(user, password, project):
    body = {"auth": {
        "identity": {"methods": ["password"], "password": {
            "user": {"name": user, "domain": {"id": "default"}, "password": password}}},
        "scope": {"project": {"name": project, "domain": {"id": "default"}}}}}
    _, headers, _ = call("POST", "/auth/tokens", body=body, expect=(201,))
    return headers["X-Subject-Token"]


def first(path, key, token):
    items = call("GET", path, token)[2][key]
    return items[0] if items else None


def ensure_project(token, name, description):
    found = first(f"/projects?name={name}&domain_id=default", "projects", token)
    if found:
        return found["id"]
    body = {"project": {"name": name, "domain_id": "default", "description": description}}
    return call("POST", "/projects", token, body, (201,))[2]["project"]["id"]


def ensure_user(token, name, password, default_project=None):
    """Returns (user id, whether the password was reset)."""
    found = first(f"/users?name={name}&domain_id=default", "users", token)
    if found:
        # A reset revokes tokens issued later in the same second: the caller waits before using it.
        call("PATCH", f"/users/{found['id']}", token, {"user": {"password": password}})
        return found["id"], True
    user = {"name": name, "domain_id": "default", "password": password}
    if default_project:
        user["default_project_id"] = default_project
    return call("POST", "/users", token, {"user": user}, (201,))[2]["user"]["id"], False


def ensure_service(token, name, stype, description, url):
    found = first(f"/services?type={stype}", "services", token)
    if found:
        sid = found["id"]
    else:
        body = {"service": {"name": name, "type": stype, "description": description}}
        sid = call("POST", "/services", token, body, (201,))[2]["service"]["id"]
    endpoint = first(f"/endpoints?service_id={sid}&interface=public&region_id=RegionOne", "endpoints", token)
    if endpoint and endpoint["url"] != url:
        call("PATCH", f"/endpoints/{endpoint['id']}", token, {"endpoint": {"url": url}})
    elif not endpoint:
        body = {"endpoint": {"service_id": sid, "interface": "public", "region_id": "RegionOne", "url": url}}
        call("POST", "/endpoints", token, body, (201,))
    return sid


def ensure_role(token, roles, name, implies=None):
    """The role's id; creates it (and the implication) when missing."""
    if name not in roles:
        roles[name] = call("POST", "/roles", token, {"role": {"name": name}}, (201,))[2]["role"]["id"]
    if implies:
        call("PUT", f"/roles/{roles[name]}/implies/{roles[implies]}", token, expect=(201, 204, 409))
    return roles[name]


def recreate_appcred(token, user_id, name, description, rules=None):
    path = f"/users/{user_id}/application_credentials"
    for old in call("GET", f"{path}?name={name}", token)[2]["application_credentials"]:
        call("DELETE", f"{path}/{old['id']}", token)
    body = {"application_credential": {"name": name, "description": description}}
    if rules is not None:
        body["application_credential"]["access_rules"] = rules
    cred = call("POST", path, token, body, (201,))[2]["application_credential"]
    return {"id": cred["id"], "name": cred["name"], "secret": cred["secret"]}


def main():
    out_path = sys.argv[1]
    env = os.environ
    admin = password_token("admin", env["ADMIN_PASSWORD"], "admin")
    roles = {r["name"]: r["id"] for r in call("GET", "/roles", admin)[2]["roles"]}
    admin_id = first("/users?name=admin&domain_id=default", "users", admin)["id"]

    admin_project = first("/projects?name=admin&domain_id=default", "projects", admin)["id"]
    ensure_role(admin, roles, "ferry", implies="reader")
    ensure_role(admin, roles, "ferry-evict", implies="ferry")
    ensure_role(admin, roles, "service")

    service = ensure_project(admin, "service", "ferry devcloud service users")
    demo = ensure_project(admin, "demo", "ferry devcloud non-admin project")
    ferry_project = ensure_project(admin, "ferry", "ferry devcloud: the agent's project, owns no image")
    glance, r1 = ensure_user(admin, "glance", env["GLANCE_PASSWORD"])
    placement, r2 = ensure_user(admin, "placement", env["PLACEMENT_PASSWORD"])
    demo_user, r3 = ensure_user(admin, "demo", env["DEMO_PASSWORD"], demo)
    ferry, r4 = ensure_user(admin, "ferry", env["FERRY_PASSWORD"], ferry_project)
    ferry_transfer, r5 = ensure_user(admin, "ferry-transfer", env["FERRY_PASSWORD"], admin_project)
    ferry_evict, r6 = ensure_user(admin, "ferry-evict", env["FERRY_PASSWORD"], admin_project)
    tenants = {}
    for name in TENANTS:
        project = ensure_project(admin, name, f"ferry devcloud: a tenant ({name}), its member boots its own images")
        user, reset = ensure_user(admin, name, env["TENANT_PASSWORD"], project)
        call("PUT", f"/projects/{project}/users/{user}/roles/{roles['member']}", admin)
        tenants[name] = {"project": project, "user": user}
        r6 = r6 or reset
    for project, user, role in ((service, glance, "admin"), (service, placement, "admin"), (demo, demo_user, "member"),
                                (ferry_project, ferry, "ferry"), (ferry_project, ferry, "service"),
                                (admin_project, ferry_transfer, "ferry"),
                                (admin_project, ferry_evict, "ferry-evict")):
        call("PUT", f"/projects/{project}/users/{user}/roles/{roles[role]}", admin)
    ensure_service(admin, "glance", "image", "ferry devcloud Glance", env["GLANCE_URL"])
    ensure_service(admin, "placement", "placement", "ferry devcloud Placement", env["PLACEMENT_URL"])
    # Adding a location (set_image_location) is the role ferry-transfer's (implies ferry), held by the direct
    # transfer's user alone (docs/security.md). A state dir from before keeps that user's role ferry: the same reach.
    ensure_role(admin, roles, "ferry-transfer", implies="ferry")
    call("PUT", f"/projects/{admin_project}/users/{ferry_transfer}/roles/{roles['ferry-transfer']}", admin)
    if r1 or r2 or r3 or r4 or r5 or r6:
        time.sleep(1.1)

    # Users create application credentials only for themselves, with their own token.
    demo_token = password_token("demo", env["DEMO_PASSWORD"], "demo")
    ferry_token = password_token("ferry", env["FERRY_PASSWORD"], "ferry")
    ferry_transfer_token = password_token("ferry-transfer", env["FERRY_PASSWORD"], "admin")
    ferry_evict_token = password_token("ferry-evict", env["FERRY_PASSWORD"], "admin")
    appcreds = {
        "admin": recreate_appcred(admin, admin_id, "ferry-devcloud-admin", "ferry devcloud admin (project admin)"),
        "demo": recreate_appcred(demo_token, demo_user, "ferry-devcloud-demo", "ferry devcloud demo (member)"),
        "ferry": recreate_appcred(ferry_token, ferry, "ferry-devcloud-ferry",
                                  "ferry devcloud: role ferry on project ferry, the Glance path", access_rules("glance-path")),
        "ferry-transfer": recreate_appcred(ferry_transfer_token, ferry_transfer, "ferry-devcloud-ferry-transfer",
                                           "ferry devcloud: role ferry on project admin (owns the images), the direct transfer",
                                           access_rules("transfer")),
        "ferry-evict": recreate_appcred(ferry_evict_token, ferry_evict, "ferry-devcloud-ferry-evict",
                                        "ferry devcloud: role ferry-evict on project admin (owns the images), ferry evict",
                                        access_rules("evict")),
    }
    result = {
        "projects": {"service": service, "demo": demo, "ferry": ferry_project, "admin": admin_project,
                     **{name: t["project"] for name, t in tenants.items()}},
        "users": {"admin": admin_id, "demo": demo_user, "glance": glance, "placement": placement, "ferry": ferry,
                  "ferry-transfer": ferry_transfer, "ferry-evict": ferry_evict, **{name: t["user"] for name, t in tenants.items()}},
        "appcreds": appcreds,
    }
    # up upgrades a state dir registered before the role ferry-transfer (scripts/devcloud/up, layout_current).
    result["transferRole"] = "ferry-transfer"
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
