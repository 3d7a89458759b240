# ascend_fleet.vllm: the two commands a newcomer needs are `make demo` and `make test`.
# Every target runs `setup` first; setup is a no-op once done.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
SIM := simulator/ascend-sim
STATE := .state
# System packages of the controller: podman (rootful, runc, netavark) for the simulated nodes,
# debootstrap for their image, ssh/rsync to reach them.
SYSTEM_PACKAGES := podman runc netavark aardvark-dns iptables debootstrap openssh-client rsync git
COLLECTION_LINK := $(STATE)/collections/ansible_collections/ascend_fleet/vllm
SANITY_DIR := $(or $(TMPDIR),/tmp)/ascend-fleet-sanity
NODES ?= 2
SIM_CACHE := /var/cache/ascend-sim

export PATH := $(BIN):$(PATH)
export CONTAINERS_CONF := $(CURDIR)/simulator/podman/containers.conf
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export ANSIBLE_HOME := $(CURDIR)/$(STATE)/ansible-home
export ANSIBLE_FORCE_COLOR ?= 1
export PY_COLORS ?= 1

.PHONY: help setup artifacts demo down lint sanity unit molecule test bench-connection clean

help:
	@echo "make demo   build the simulated Atlas fleet ($(NODES) nodes) and run site.yml on it"
	@echo "make test   lint, ansible-test sanity, unit tests and molecule scenarios"
	@echo "make down   remove the simulated fleet, its network and state"
	@echo "parts: make setup | lint | sanity | unit | molecule"

setup: $(STATE)/system.done $(VENV)/.installed $(COLLECTION_LINK)

$(STATE)/system.done: Makefile
	@missing=$$(for p in $(SYSTEM_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@mkdir -p $(STATE) && touch $@

$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

# The collection resolves from this checkout: ansible.cfg's collections_path points here.
$(COLLECTION_LINK):
	@mkdir -p $(dir $@) && ln -sfn $(CURDIR) $@

# Installers and wheels of every release, built by the simulator (inventories/sim reads them).
artifacts: setup
	@for release in releases/*.yml; do \
	  $(SIM) artifacts --release $$release --out $(SIM_CACHE)/artifacts/$$(basename $$release .yml); \
	done

demo: artifacts
	$(SIM) up --nodes $(NODES)
	ansible-playbook -i inventories/sim site.yml

down: setup
	$(SIM) down

lint: setup
	yamllint --strict .
	ruff check .
	ansible-lint

# ansible-test runs on what ships: the collection built (galaxy.yml's build_ignore leaves out the
# simulator and project tooling) and installed at ansible_collections/<namespace>/<name>, outside
# this git checkout (inside it, ansible-test would only see files git tracks there: none).
sanity: setup
	@rm -rf $(SANITY_DIR) && mkdir -p $(SANITY_DIR)
	ansible-galaxy collection build --output-path $(SANITY_DIR) . >/dev/null
	ANSIBLE_COLLECTIONS_PATH=$(SANITY_DIR) ansible-galaxy collection install -p $(SANITY_DIR) \
	  $(SANITY_DIR)/ascend_fleet-vllm-*.tar.gz >/dev/null
	python tests/sanity/seed_pip_bootstrap.py
	cd $(SANITY_DIR)/ansible_collections/ascend_fleet/vllm && ansible-test sanity --python 3.11
	@rm -rf $(SANITY_DIR)

# The collection's unit tests, and the simulator's own (it ships separately from the collection).
unit: setup
	pytest tests/unit simulator/tests

molecule: artifacts
	$(SIM) build-image
	status=0; molecule test --all || status=$$?; $(SIM) down; exit $$status

test: lint sanity unit molecule

# Figures, not tests: the per-task cost of each way of reaching a simulated node.
bench-connection: setup
	python tests/bench/connection_cost.py

clean: down
	rm -rf $(STATE)
