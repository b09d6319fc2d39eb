package com.example;

import java.util.List;

/** A greeter. */
public final class Greeter<T> extends Base implements Runnable {
    private static final int MAX = 42;
    @Override
    public void run() {
        List<String> names = List.of("a", "b");
        for (String n : names) System.out.println("hi " + n + 'c');
    }
}
