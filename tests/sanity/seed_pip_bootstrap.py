"""Let ansible-test bootstrap pip in its sanity virtualenvs without its CI file host.

ansible-test creates each sanity venv without pip, then runs a cached `get-pip` script that it
downloads from ansible's CI file server, which this project's machines cannot reach (they reach
PyPI). This writes a stand-in at the cache path ansible-test looks for: it installs the venv's
bundled pip with ensurepip, then asks that pip (from the configured index) for the exact
packages ansible-test requested. Run with the Python that has ansible-test installed.
"""

import pathlib
import re

import ansible_test

SHIM = '''"""Stand-in for get-pip.py, written by tests/sanity/seed_pip_bootstrap.py."""
import subprocess
import sys

subprocess.check_call([sys.executable, "-m", "ensurepip", "--default-pip"])
args = [arg for arg in sys.argv[1:] if arg not in ("--no-setuptools", "--no-wheel")]
subprocess.check_call([sys.executable, "-m", "pip", "install", *args])
'''


def main():
    source = pathlib.Path(ansible_test.__file__).parent / "_internal" / "python_requirements.py"
    match = re.search(r"pip='([0-9.]+)'", source.read_text())
    if not match:
        raise SystemExit(f"cannot find ansible-test's pip version in {source}")
    version = match.group(1).replace(".", "_")
    cache = pathlib.Path.home() / ".ansible" / "test" / "cache" / f"get_pip_{version}.py"
    if not cache.exists() or cache.read_text() != SHIM:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(SHIM)


if __name__ == "__main__":
    main()
