"""The event network's MQTT link, both ends of it (docs/event-network.md).

* :mod:`uplink.board` — on each board Pi, ``hautetension uplink``: the outbox
  (written by the store with the journal), the board's status and its public
  live view, to the event's broker; the server's acknowledgements and the
  table assigned to the board, back into the board's database.
* :mod:`uplink.ingest` — on the event server, inside ``hautetension
  central``: every board's messages into the event store, exactly once, and
  the server's acknowledgements and assignments out.
* the topics and payloads both ends agree on are the protocol leaf
  (:mod:`protocol`, with its bounded reader); :mod:`uplink.client` — the paho-mqtt client both use;
  :mod:`uplink.settings` — ``[uplink]`` and the broker keys ``[central]`` shares.

The package imports the store, the protocol leaf, paho-mqtt and the config leaf only: the board
service stays off the network, and the panel talks to the link through the
database.
"""
