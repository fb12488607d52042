"""Test and dev support: builders of recorded hosts (not shipped with tierdeck).

``recording`` (the HostRecording builder), ``recording_udev`` and ``recording_tools``
(what udev, OpenZFS 2.1 and mergerfs 2.33 answer) and ``large_host`` (the 240-disk
benchmark NAS) write folders that :class:`tierdeck.backends.host.RecordedHost` reads.
The tests, ``scripts/make_demo_host.py`` and ``bench/inventory.py`` use them; the
installed package has only the reader. They import tierdeck by its installed name.
``fio_notes`` builds a notes file of two real fio reports for the import tests.
"""
