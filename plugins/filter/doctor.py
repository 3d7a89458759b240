"""Filters of the preflight doctor: judge a host's gathered facts (module_utils/_doctor.py)."""

from __future__ import annotations

from ansible_collections.ascend_fleet.vllm.plugins.module_utils._doctor import (
    blocking_failures,
    installed_versions,
    preflight_checks,
    render_table,
)


class FilterModule:
    """preflight_checks, preflight_blocking, preflight_table, installed_versions."""

    def filters(self):
        return {
            "preflight_checks": preflight_checks,
            "preflight_blocking": blocking_failures,
            "preflight_table": render_table,
            "installed_versions": installed_versions,
        }
