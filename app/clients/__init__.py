"""One job run from several machines at once through fio's own client/server mode."""
