# Copyright: ascend-fleet developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The attributes the collection's modules share.

Only the support each module declares: the descriptions come from
ansible.builtin.action_common_attributes (and its .facts), which a module extends after these.
A module's own attributes win over these, so it can add details or declare other support.
ansible-doc lists the attributes in the order the module and then its fragments first name
them, so a read-only module names READ_ONLY, then FACTS, then this DOCUMENTATION.
"""

from __future__ import annotations


class ModuleDocFragment:
    # Every module of the collection: full check mode support, on POSIX hosts.
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    support: full
  platform:
    platforms: posix
"""

    # Modules that change nothing on the host: they run the same in check mode and have no diff
    # to show.
    READ_ONLY = r"""
options: {}
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

    # Modules that return ansible_facts.
    FACTS = r"""
options: {}
attributes:
  facts:
    support: full
"""
