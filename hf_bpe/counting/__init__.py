"""Text sources to pre-token counts: sources, counting in local processes, counts directories, datatrove."""
