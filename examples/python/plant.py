#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The simulated plant of the hardware-in-the-loop examples.

    python3 plant.py [URI]          (default: $RFM_URI)

Opens its node (node 1 of hil-bench.yaml's network: the writer of the
plant region), publishes its state record plant.state, then prints
"ready NODE_ID" (the bench's ready signal) and runs at 1 kHz: each step
moves the temperature towards the bench's setpoint; INTR1 ("go to safe mode
N") sets the mode, closes the valve, publishes, and answers INTR2 with N;
INTR4 stops it (exit status 0), as SIGTERM does.
"""

import os
import signal
import sys

import rfm

HERE = os.path.dirname(os.path.abspath(__file__))
LAYOUT = os.path.join(HERE, "hil-bench.yaml")

CMD_SAFE_MODE = rfm.EventType.INTR1   # bench -> plant: data = the mode to enter
ACK = rfm.EventType.INTR2             # plant -> bench: data = the command acknowledged
SHUTDOWN = rfm.EventType.INTR4        # bench -> plant: stop
PERIOD_NS = 1_000_000                 # 1 kHz


def plant(uri):
    """The simulated plant: publish the state every millisecond, obey interrupts."""
    layout = rfm.Layout.load(LAYOUT)
    with rfm.open(uri) as node:
        table = node.attach_layout(layout)
        state = table.record("plant.state")
        setpoint = table.var("bench.setpoint")
        node.enable_events(CMD_SAFE_MODE, SHUTDOWN)
        s = {"cycle": 0, "temperature": 20.0, "check": 0.0, "mode": 0, "valve_open": True,
             "last_command": 0}
        state.write(s)
        print("ready", node.node_id, flush=True)  # the bench's ready signal
        next_tick = rfm.now_ns()
        while True:
            try:
                timeout = max(0, next_tick - rfm.now_ns()) / 1e9
                ev = node.wait_event(timeout=timeout)
            except (rfm.Timeout, rfm.WouldBlock):
                ev = None
            if ev is not None:
                if ev.type == SHUTDOWN:
                    return 0
                if ev.type == CMD_SAFE_MODE:
                    s["mode"], s["valve_open"], s["last_command"] = ev.data, False, ev.data
                    s["cycle"] += 1
                    s["check"] = s["cycle"] * 0.25
                    state.write(s)  # the new state first, then the acknowledgement
                    node.send_event(ev.sender, ACK, ev.data)
                continue
            # One simulation step: first-order lag towards the setpoint.
            s["cycle"] += 1
            s["temperature"] += (setpoint.get() - s["temperature"]) * 0.01
            s["check"] = s["cycle"] * 0.25
            state.write(s)
            next_tick += PERIOD_NS


def main():
    # SIGTERM (how a test stops its peer) ends the loop like INTR4: the node
    # closes on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    return plant(sys.argv[1] if len(sys.argv) > 1 else None)


if __name__ == "__main__":
    sys.exit(main())
