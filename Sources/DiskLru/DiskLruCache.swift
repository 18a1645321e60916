// DiskLru: see DiskLruCache.swift
