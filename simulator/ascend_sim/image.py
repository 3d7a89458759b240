"""Build the simulated Atlas node image: a debootstrapped Debian with systemd, imported into podman.

Two layers, each tagged by a hash of its inputs so that a rebuild happens only when they change:
- `ascend-sim-base:<hash>`: debootstrap (the [installed] packages of image/packages.txt) plus a
  local apt repository holding the [repository] packages, downloaded but not installed;
- `ascend-sim-node:<hash>` (also tagged `latest`): the base plus the simulator itself
  (npu-smi, the state tool, boot units), from image/Containerfile.
"""

import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

from ascend_sim import podman

SIM_DIR = pathlib.Path(__file__).resolve().parent.parent
IMAGE_DIR = SIM_DIR / "image"
SUITE = "bookworm"
BASE_REPO = "localhost/ascend-sim-base"
NODE_REPO = "localhost/ascend-sim-node"
NODE_IMAGE = f"{NODE_REPO}:latest"
# Inside the image: where the local apt repository lives.
LOCAL_REPO = "/var/lib/ascend-sim/apt"
# On the controller: caches that outlive a checkout (debootstrap packages, built artifacts).
CACHE_DIR = pathlib.Path("/var/cache/ascend-sim")


def read_packages(path=IMAGE_DIR / "packages.txt"):
    """Return {"installed": [...], "repository": [...]} from the sectioned package list."""
    sections, current = {}, None
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        elif current is None:
            raise SystemExit(f"{path}: package names before the first [section]")
        else:
            current.extend(line.split())
    return sections


def debian_mirror():
    """The Debian mirror this machine's apt uses (ASCEND_SIM_MIRROR overrides it)."""
    if os.environ.get("ASCEND_SIM_MIRROR"):
        return os.environ["ASCEND_SIM_MIRROR"]
    sources = sorted(pathlib.Path("/etc/apt/sources.list.d").glob("*.sources"))
    for path in sources:
        match = re.search(r"^URIs:\s*(\S+)", path.read_text(), re.M)
        if match and "security" not in match.group(1):
            return match.group(1)
    legacy = pathlib.Path("/etc/apt/sources.list")
    if legacy.exists():
        match = re.search(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+", legacy.read_text(), re.M)
        if match:
            return match.group(1)
    raise SystemExit(
        "no Debian mirror found in this machine's apt sources: set ASCEND_SIM_MIRROR to one"
    )


def _digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
    return h.hexdigest()[:12]


def _tree_digest(root):
    files = sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return _digest(*(f"{p.relative_to(root)}\0".encode() + p.read_bytes() for p in files))


def base_tag():
    return f"{BASE_REPO}:{_digest((IMAGE_DIR / 'packages.txt').read_bytes(), SUITE, 'v1')}"


def node_tag():
    inputs = [_tree_digest(SIM_DIR / name) for name in ("ascend_sim", "bin", "image")]
    return f"{NODE_REPO}:{_digest(base_tag(), *inputs)}"


CHROOT_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive"}


def _chroot(rootfs, *cmd):
    subprocess.run(["chroot", str(rootfs), *cmd], check=True, env=CHROOT_ENV)


def build_base(cache_dir):
    """debootstrap + local apt repository, imported as the base image."""
    tag = base_tag()
    if podman.image_exists(tag):
        print(f"base image {tag} is up to date")
        return tag
    packages = read_packages()
    mirror = debian_mirror()
    deb_cache = cache_dir / "debootstrap"
    deb_cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
        rootfs = pathlib.Path(tmp) / "rootfs"
        print(f"debootstrap {SUITE} into a temporary root (cache: {deb_cache})")
        subprocess.run(["debootstrap", "--variant=minbase", f"--cache-dir={deb_cache}",
                        "--include=" + ",".join(packages["installed"]), SUITE, str(rootfs), mirror],
                       check=True, stdout=subprocess.DEVNULL)
        shutil.copy("/etc/resolv.conf", rootfs / "etc/resolv.conf")
        _chroot(rootfs, "apt-get", "update", "-qq")
        _chroot(rootfs, "apt-get", "install", "-qq", "--download-only", "--no-install-recommends",
                "-y", *packages["repository"])
        repo = rootfs / LOCAL_REPO.lstrip("/")
        repo.mkdir(parents=True)
        for deb in (rootfs / "var/cache/apt/archives").glob("*.deb"):
            shutil.move(str(deb), repo / deb.name)
        _chroot(rootfs, "sh", "-c", f"cd {LOCAL_REPO} && apt-ftparchive packages . > Packages")
        # The node has no network: its only package source is the local repository.
        (rootfs / "etc/apt/sources.list").write_text(f"deb [trusted=yes] file:{LOCAL_REPO} ./\n")
        _chroot(rootfs, "apt-get", "update", "-qq")
        _chroot(rootfs, "apt-get", "clean")
        (rootfs / "etc/resolv.conf").unlink()
        for keyfile in (rootfs / "etc/ssh").glob("ssh_host_*"):
            keyfile.unlink()  # every node makes its own at first boot
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "--numeric-owner", "--xattrs", "-c", "."],
                               stdout=subprocess.PIPE)
        podman.run("import", "--change", 'CMD ["/sbin/init"]', "--change", "STOPSIGNAL=SIGRTMIN+3",
                   "--change", "ENV container=podman", "-", tag, stdin=tar.stdout)
        if tar.wait() != 0:
            raise SystemExit("tar of the node root filesystem failed")
    return tag


def prune(repo, keep):
    """Remove the older builds of `repo` (those still used by a container stay)."""
    tags = podman.run("images", "--format", "{{.Repository}}:{{.Tag}}", "--filter",
                      f"reference={repo}", capture=True).split()
    for old in set(tags) - set(keep):
        podman.run("rmi", old, capture=True, check=False)


def build_node(cache_dir):
    """The simulator layer on top of the base; tags it `latest` as well."""
    base = build_base(cache_dir)
    tag = node_tag()
    if not podman.image_exists(tag):
        podman.run("build", "--quiet", "--network=none", "--build-arg", f"BASE={base}", "-f",
                   str(IMAGE_DIR / "Containerfile"), "-t", tag, str(SIM_DIR), capture=True)
    podman.run("tag", tag, NODE_IMAGE)
    prune(NODE_REPO, {tag, NODE_IMAGE})
    prune(BASE_REPO, {base})
    print(f"node image {tag} (also {NODE_IMAGE})")
    return tag


def cmd_build_image(args):
    podman.ensure_network()
    build_node(pathlib.Path(args.cache_dir).resolve())


def register(subparsers):
    parser = subparsers.add_parser("build-image", help="build (or reuse) the simulated node image")
    parser.add_argument("--cache-dir", default=str(CACHE_DIR),
                        help=f"where the debootstrap package cache lives (default: {CACHE_DIR})")
    parser.set_defaults(func=cmd_build_image)
