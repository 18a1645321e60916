// An app that imports ThumbcacheKit sees ProcessingOptions, Presets and ProcessingPath without a second import.
@_exported import Processing
