# SPDX-License-Identifier: LGPL-2.1-or-later
"""A hardware-in-the-loop bench as pytest tests, with the rfm plugin only.

    pytest examples/python/test_hil_plant.py            (rfm installed: the plugin loads)
    pytest --rfm-backend=dds examples/python/test_hil_plant.py

Each test gets a private network with the layout hil-bench.yaml, the bench's
node 0 on it (``rfm_table``: the layout on that node) and the simulated plant
(plant.py) as node 1 in a process of its own, started once it said "ready";
whatever a test leaves, passed or failed, is stopped and removed.
"""

import pytest

import rfm

pytestmark = pytest.mark.rfm_layout("hil-bench.yaml")

SAFE_MODE = rfm.EventType.INTR1   # bench -> plant: data = the mode to enter
ACK = rfm.EventType.INTR2         # plant -> bench: data = the command acknowledged
SHUTDOWN = rfm.EventType.INTR4    # bench -> plant: stop


@pytest.fixture
def bench(rfm_network, rfm_layout):
    """The bench: node 0 (the writer of the bench region), with the layout."""
    node = rfm_network.open(node=0)
    node.enable_events(ACK)
    return node.attach_layout(rfm_layout)


@pytest.fixture
def plant(bench, rfm_peer):
    """The plant on node 1, running and publishing."""
    return rfm_peer.python("plant.py", node=1)


def test_the_plant_publishes_its_state(bench, plant):
    state = bench.record("plant.state")
    changes = list(state.changes(timeout=5, total=0.5))
    cycles = [c.values["cycle"] for c in changes]
    assert len(cycles) >= 2
    assert cycles == sorted(cycles)


def test_every_snapshot_is_consistent(bench, plant):
    state = bench.record("plant.state")
    for _ in range(500):
        snap = state.read()
        assert snap["check"] == snap["cycle"] * 0.25


def test_safe_mode_is_acknowledged_after_the_state_shows_it(bench, plant):
    bench.node.send_event(int(plant.ready[0]), SAFE_MODE, 3)
    ack = bench.node.wait_event(timeout=10)
    assert (ack.type, ack.data) == (ACK, 3)
    state = bench["plant.state"]            # published before the acknowledgement
    assert state["mode"] == 3
    assert state["valve_open"] is False
    assert state["last_command"] == 3


def test_the_setpoint_reaches_the_plant(bench, plant):
    bench["bench.setpoint"] = 80.0
    state = bench.record("plant.state")
    first = state.read()["temperature"]
    for change in state.changes(timeout=5, total=10):
        if change.values["temperature"] > first + 1.0:
            break
    else:
        pytest.fail("the temperature did not follow the setpoint within 10 s")


def test_the_plant_region_is_the_plants(bench, plant):
    with pytest.raises(PermissionError):
        bench["plant.state"] = {"mode": 9}


def test_a_misspelt_name_suggests_the_right_one(bench):
    with pytest.raises(KeyError, match="did you mean 'bench.setpoint'"):
        bench["bench.setpiont"] = 1.0


def test_the_plant_stops_on_shutdown(bench, plant):
    bench.node.send_event(int(plant.ready[0]), SHUTDOWN, 0)
    assert plant.wait(timeout=30) == 0


def test_an_acknowledgement_awaited_with_asyncio(bench, plant):
    import asyncio

    async def command_and_await():
        bench.node.send_event(int(plant.ready[0]), SAFE_MODE, 5)
        return await bench.node.wait_event_async(timeout=10)

    ack = asyncio.run(command_and_await())
    assert (ack.type, ack.data) == (ACK, 5)
