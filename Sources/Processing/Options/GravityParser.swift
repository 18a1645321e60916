/// Reads `type[:x[:y]]` gravity arguments as imgproxy's parseGravity does: offsets not given keep the
/// ones already set; `fp` takes exactly two (0…1); `sm` takes none.
enum GravityParser {
    /// What the gravity places: a crop allows the detectors, an extend canvas does not.
    enum Use {
        case crop
        case extend
    }

    static func parse(_ args: OptionArguments, current: Gravity, use: Use) throws(ProcessingError) -> Gravity {
        let kind = args.isGiven(0) ? args.values[0] : spelling(of: current)
        var (x, y) = offsets(of: current)
        switch kind {
        case "sm", "entropy":
            guard use == .crop else { throw args.bad(0, "a compass gravity or fp (detectors only place crops)") }
            guard args.count <= 1 else { throw args.bad(1, "no offsets after \(kind)") }
            return kind == "sm" ? .smart : .entropy
        case "obj", "objw":
            throw .notSupported(option: "\(args.option):\(kind)")
        case "fp":
            guard args.count == 3 else { throw args.bad(0, "fp:x:y with x and y from 0 to 1") }
            for index in 1...2 where args.isGiven(index) {
                guard let value = Double(args.values[index]), (0...1).contains(value) else {
                    throw args.bad(index, "a focus point coordinate from 0 to 1")
                }
                if index == 1 { x = value } else { y = value }
            }
            return .focusPoint(x: x, y: y)
        default:
            guard let point = Gravity.CompassPoint(rawValue: kind) else {
                throw args.bad(0, use == .crop ? "one of ce, no, so, ea, we, noea, nowe, soea, sowe, fp, sm, entropy"
                                               : "one of ce, no, so, ea, we, noea, nowe, soea, sowe, fp")
            }
            guard args.count <= 3 else { throw args.bad(3, "at most two offsets") }
            for index in 1..<max(1, args.count) where args.isGiven(index) {
                guard let value = Double(args.values[index]), value.isFinite else { throw args.bad(index, "an offset number") }
                if index == 1 { x = value } else { y = value }
            }
            return .compass(point, x: x, y: y)
        }
    }

    static func spelling(of gravity: Gravity) -> String {
        switch gravity {
        case let .compass(point, _, _): point.rawValue
        case .focusPoint: "fp"
        case .smart: "sm"
        case .entropy: "entropy"
        }
    }

    static func offsets(of gravity: Gravity) -> (Double, Double) {
        switch gravity {
        case let .compass(_, x, y), let .focusPoint(x, y): (x, y)
        case .smart, .entropy: (0, 0)
        }
    }
}
