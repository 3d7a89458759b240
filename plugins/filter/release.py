"""Filters that read a release file (releases/<name>.yml) for the roles."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

# Architecture names as Ansible reports them, mapped to the names release files use.
ARCH_ALIASES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


def release_artifact(release, component, arch, checksums=None):
    """The artifact of `component` in `release` for `arch`.

    `checksums` maps file names to sha256 (a site's vetted SHA256SUMS); the release's own `sha256`
    pin, when it has one for the arch, wins.
    """
    if arch not in ARCH_ALIASES:
        raise AnsibleFilterError(
            f"architecture {arch!r} is not supported: allowed {sorted(set(ARCH_ALIASES.values()))}"
        )
    arch = ARCH_ALIASES[arch]
    for artifact in release.get("artifacts", []):
        if artifact.get("component") != component:
            continue
        files = artifact.get("files", {})
        if arch not in files:
            raise AnsibleFilterError(
                f"release {release.get('name')!r} has no {component} artifact for {arch}: "
                f"it lists {sorted(files)}; add one to releases/{release.get('name')}.yml"
            )
        file = files[arch]
        pinned = artifact.get("sha256", {}).get(arch)
        return {
            "component": component,
            "version": str(artifact.get("version")),
            "file": file,
            "sha256": pinned or (checksums or {}).get(file),
        }
    known = sorted({a.get("component") for a in release.get("artifacts", [])})
    raise AnsibleFilterError(
        f"release {release.get('name')!r} has no {component!r} artifact: it has {known}"
    )


def release_artifacts(release, arch, checksums=None):
    """Every artifact of `release` for `arch`, in the release file's order."""
    return [
        release_artifact(release, component, arch, checksums)
        for component in dict.fromkeys(a.get("component") for a in release.get("artifacts", []))
    ]


def sha256sums(text):
    """Parse `sha256sum` output (`<hex>  <file>` or `<hex> *<file>`) into {file: hex}."""
    sums = {}
    for number, line in enumerate(str(text).splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 1)
        if len(parts) != 2 or len(parts[0]) != 64:
            raise AnsibleFilterError(f"checksum line {number} is not '<sha256>  <file>': {line!r}")
        sums[parts[1].lstrip("*")] = parts[0].lower()
    return sums


class FilterModule:
    """Release file helpers."""

    def filters(self):
        return {
            "release_artifact": release_artifact,
            "release_artifacts": release_artifacts,
            "sha256sums": sha256sums,
        }
