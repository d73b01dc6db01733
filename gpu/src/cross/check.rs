//! Independent checks of translated modules.
